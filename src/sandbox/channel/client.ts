import type { Readable, Writable } from 'node:stream';
import { CancelledError } from '../../core/ports/cancellation.js';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { SandboxFaultError } from '../../core/ports/sandbox.js';
import { CappedOutput, floodLimit } from '../outputCap.js';
import { decodeExit, encodeFrame, encodeRun, exitFlag, FrameDecoder, frameType, nulProblem } from './protocol.js';
import type { ExitInfo, Frame, RunRequest } from './protocol.js';

/** What one command through the channel gave back. */
export interface ChannelResult {
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  /** Always 'channel': tests assert it, so a fallback can never pass for the channel. */
  via: 'channel';
  shell: 'session' | 'stateless';
  /** Session commands: the shell was lost and the next command starts a new one; `note` says what was lost. */
  sessionRestarted?: { note: string };
}

export interface ChannelCommand {
  argv: readonly string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  maxOutputBytes: number;
  session?: boolean;
  verifier?: boolean;
  signal?: Cancellation;
}

/** The supervisor is gone or spoke out of protocol: the sandbox can no longer be trusted to run anything. */
export class ChannelClosedError extends SandboxFaultError {
  constructor(message: string) {
    super(message);
    this.name = 'ChannelClosedError';
  }
}

/** How long past a command's deadline the supervisor may take to answer before the host gives the channel up. */
const replyGraceMs = 15_000;
const stdinChunk = 256 * 1024;
const stdinWindow = 1024 * 1024;

interface Pending {
  stdout: CappedOutput;
  stderr: CappedOutput;
  resolve: (info: ExitInfo) => void;
  reject: (err: unknown) => void;
  stdin?: Buffer;
  stdinSent: number;
  inFlight: number;
}

/**
 * The host's end of one channel: requests out, frames in. It parses only frames; a command's bytes are counted
 * and capped, never interpreted. One client serves one channel of one sandbox, and a sandbox serves one rollout.
 */
export class ChannelClient {
  readonly hello: Promise<string>;
  private readonly decoder = new FrameDecoder();
  private readonly pending = new Map<number, Pending>();
  private readonly control = new Map<number, (payload: Buffer) => void>();
  private nextId = 1;
  private deadReason: string | undefined;
  private helloResolve: ((text: string) => void) | undefined;
  private helloReject: ((err: unknown) => void) | undefined;
  private sessionTail: Promise<unknown> = Promise.resolve();
  /** Supervisor's pid inside the sandbox (from its hello). */
  supervisorPid: number | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: { name: string; onDead?: (reason: string) => void; onStuck?: () => void },
  ) {
    this.hello = new Promise<string>((resolve, reject) => {
      this.helloResolve = resolve;
      this.helloReject = reject;
    });
    this.hello.catch(() => undefined);
    input.on('data', (chunk: Buffer) => this.onData(chunk));
    input.once('end', () => this.die('the supervisor closed the channel'));
    input.once('close', () => this.die('the supervisor closed the channel'));
    input.once('error', (err) => this.die(`the channel failed: ${err.message}`));
    output.on('error', (err) => this.die(`the channel failed: ${err.message}`));
  }

  get dead(): boolean {
    return this.deadReason !== undefined;
  }

  /** Why the channel ended, when it did. */
  get reason(): string | undefined {
    return this.deadReason;
  }

  /** Runs one command; session commands are queued so the shell runs one at a time. */
  run(command: ChannelCommand): Promise<ChannelResult> {
    if (!command.session) return this.runNow(command);
    const next = this.sessionTail.then(() => this.runNow(command));
    this.sessionTail = next.catch(() => undefined);
    return next;
  }

  /** Ends every process the channel started, the session included; resolves when none is left. */
  async endAll(): Promise<{ ok: boolean; lostSession: boolean }> {
    const payload = await this.controlRequest(frameType.endAll);
    return { ok: payload.readUInt32LE(0) === 0, lostSession: payload.readUInt32LE(4) === 1 };
  }

  /** Closes the channel; the supervisor ends whatever still runs and exits. */
  close(): void {
    if (!this.dead) this.output.end();
    this.die('closed by the host');
  }

  private async runNow(command: ChannelCommand): Promise<ChannelResult> {
    if (this.deadReason) throw new ChannelClosedError(`${this.options.name}: ${this.deadReason}`);
    if (command.signal?.aborted) throw new CancelledError('command cancelled before it started');
    const started = performance.now();
    const request: RunRequest = {
      argv: command.argv,
      cwd: command.cwd ?? '',
      env: command.env ?? {},
      timeoutMs: command.timeoutMs,
      maxOutputBytes: command.maxOutputBytes,
      floodBytes: floodLimit(command.maxOutputBytes),
      stdin: command.stdin !== undefined,
      session: command.session === true,
      verifier: command.verifier === true,
    };
    const problem = nulProblem(request);
    if (problem) throw new Error(`cannot run the command: ${problem}`);
    const id = this.nextId++;
    const entry: Pending = {
      stdout: new CappedOutput(command.maxOutputBytes),
      stderr: new CappedOutput(command.maxOutputBytes),
      resolve: () => undefined,
      reject: () => undefined,
      stdinSent: 0,
      inFlight: 0,
      ...(command.stdin !== undefined ? { stdin: Buffer.from(command.stdin) } : {}),
    };
    const done = new Promise<ExitInfo>((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    this.pending.set(id, entry);
    const onAbort = (): void => this.send(encodeFrame(frameType.cancel, id));
    command.signal?.addEventListener('abort', onAbort, { once: true });
    // The supervisor enforces the deadline; this only catches a supervisor that stopped answering.
    const backstop = setTimeout(() => {
      this.options.onStuck?.();
      this.die(`no answer ${replyGraceMs} ms after a command's deadline`);
    }, command.timeoutMs + replyGraceMs);
    try {
      this.send(encodeRun(id, request));
      this.pumpStdin(id, entry);
      const info = await done;
      if (info.flags & exitFlag.cancelled && command.signal?.aborted) throw new CancelledError('command cancelled');
      return this.resultOf(info, entry, command, performance.now() - started);
    } finally {
      clearTimeout(backstop);
      command.signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
    }
  }

  private resultOf(info: ExitInfo, entry: Pending, command: ChannelCommand, elapsedMs: number): ChannelResult {
    const timedOut = (info.flags & exitFlag.timedOut) !== 0;
    const flooded = (info.flags & exitFlag.flooded) !== 0;
    if (info.flags & exitFlag.killFailed) {
      // Even SIGKILL over the whole tree did not end it: today's last resort applies, the sandbox is removed.
      this.options.onStuck?.();
    }
    let err = entry.stderr.text();
    if (info.flags & exitFlag.spawnFailed && info.message) err += `coevolve: ${info.message}\n`;
    if (flooded) err += `\n[coevolve: command stopped after writing more than ${floodLimit(command.maxOutputBytes)} bytes]\n`;
    const restarted = (info.flags & exitFlag.restarted) !== 0;
    if (restarted && info.message) err += `\n[coevolve: ${info.message}]\n`;
    return {
      stdout: entry.stdout.text(),
      stdoutBytes: entry.stdout.bytes(),
      stderr: err,
      exitCode: timedOut ? 124 : info.code,
      timedOut,
      truncated: entry.stdout.truncated || entry.stderr.truncated || flooded,
      durationMs: Math.round(elapsedMs),
      via: 'channel',
      shell: info.flags & exitFlag.session ? 'session' : 'stateless',
      ...(restarted ? { sessionRestarted: { note: info.message || 'the session\'s shell was lost' } } : {}),
    };
  }

  /** Sends stdin in chunks, at most a window ahead of what the command has read. */
  private pumpStdin(id: number, entry: Pending): void {
    const data = entry.stdin;
    if (!data) return;
    while (entry.stdinSent < data.length && entry.inFlight < stdinWindow) {
      const chunk = data.subarray(entry.stdinSent, entry.stdinSent + stdinChunk);
      entry.stdinSent += chunk.length;
      entry.inFlight += chunk.length;
      this.send(encodeFrame(frameType.stdin, id, chunk));
    }
    if (entry.stdinSent >= data.length) {
      this.send(encodeFrame(frameType.stdin, id));
      entry.stdin = undefined;
    }
  }

  private controlRequest(type: number): Promise<Buffer> {
    if (this.deadReason) return Promise.reject(new ChannelClosedError(`${this.options.name}: ${this.deadReason}`));
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      this.control.set(id, resolve);
      this.pending.set(id, { stdout: new CappedOutput(0), stderr: new CappedOutput(0), resolve: () => undefined, reject, stdinSent: 0, inFlight: 0 });
      this.send(encodeFrame(type, id));
    }).finally(() => {
      this.control.delete(id);
      this.pending.delete(id);
    });
  }

  private send(frame: Buffer): void {
    if (this.deadReason) return;
    this.output.write(frame);
  }

  private onData(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.die((err as Error).message);
      return;
    }
    for (const f of frames) this.onFrame(f);
  }

  private onFrame(f: Frame): void {
    if (f.type === frameType.hello) {
      const text = f.payload.toString('utf8');
      this.supervisorPid = Number(/pid=(\d+)/.exec(text)?.[1]);
      this.helloResolve?.(text);
      return;
    }
    if (f.type === frameType.fatal) {
      this.die(`the supervisor stopped: ${f.payload.toString('utf8')}`);
      return;
    }
    if (f.type === frameType.done) {
      this.control.get(f.id)?.(f.payload);
      return;
    }
    const entry = this.pending.get(f.id);
    if (!entry) return; // a command the caller already gave up on
    switch (f.type) {
      case frameType.out:
        entry.stdout.push(f.payload);
        break;
      case frameType.err:
        entry.stderr.push(f.payload);
        break;
      case frameType.skip: {
        // Bytes the supervisor counted but did not send: the middle of an output past its cap.
        const sink = f.payload.readUInt8(0) === 0 ? entry.stdout : entry.stderr;
        sink.total += Number(f.payload.readBigUInt64LE(1));
        break;
      }
      case frameType.ack:
        entry.inFlight -= f.payload.readUInt32LE(0);
        this.pumpStdin(f.id, entry);
        break;
      case frameType.exit:
        try {
          entry.resolve(decodeExit(f.payload));
        } catch (err) {
          this.die((err as Error).message);
        }
        break;
      default:
        this.die(`the supervisor sent an unknown frame type ${f.type}`);
    }
  }

  private die(reason: string): void {
    if (this.deadReason) return;
    this.deadReason = reason;
    this.helloReject?.(new ChannelClosedError(`${this.options.name}: ${reason}`));
    const err = new ChannelClosedError(`${this.options.name}: the command channel ended (${reason})`);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.options.onDead?.(reason);
  }
}
