import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Starts a bwrap sandbox's namespace set from a small helper process (the channel binary's `--spawner` mode,
 * supervisor.c) instead of node's own spawn. Node's spawn forks the whole host process: with a run's heap that cost
 * about 15 ms of CPU per sandbox on the development VM, two sandboxes a rollout, about a tenth of a demo's CPU. The
 * helper forks itself (a static binary of a few pages), and the started process connects back to a socket of ours
 * with a one-time token for each of its fd groups, so its stdio are sockets to this process as pipes were.
 */
export interface SpawnedSandbox {
  /** Host pid of the started process (the launcher, which execs bwrap). */
  pid: number;
  /** Its fds 0 and 1: the agent channel. */
  agent: Socket;
  /** Its fds 3 and 4: the root channel. */
  root: Socket;
  /** The last 2,000 characters its fd 2 received: diagnostics of the launcher, bwrap and the supervisor. */
  diagnostics(): string;
  /** Resolves with the exit status (128 + signal when killed) once it ended and its stderr closed. */
  exited: Promise<number>;
  /** SIGKILL, by the helper (which knows the pid is still its child, never a reused one). */
  kill(): void;
}

/** The helper's private socket folder: this and the owner's pid, so the reaper removes those of dead runs. */
export const spawnerPrefix = 'coevolve-spawner-';
/** Where the folder goes instead when tmpdir() is too long for a socket's path (107 bytes); the reaper looks here too. */
export const spawnerFallbackDir = '/tmp';
const tokenLength = 32;
const defaultPath = '/usr/sbin:/usr/bin:/sbin:/bin';
const connectTimeoutMs = 30_000;
const fdGroups = ['a', 'r', 'e'] as const;
type FdGroup = (typeof fdGroups)[number];

interface Entry {
  id: number;
  token: string;
  pid?: number;
  /** The helper saw its three connections made (they are then in this process's backlog, maybe not yet accepted). */
  connected?: boolean;
  sockets: Partial<Record<FdGroup, Socket>>;
  stderr: string;
  started: (s: SpawnedSandbox) => void;
  failed: (err: Error) => void;
  status?: number;
  ended: (status: number) => void;
  exited: Promise<number>;
  done: boolean;
}

export class Spawner {
  private readonly entries = new Map<number, Entry>();
  private readonly byToken = new Map<string, Entry>();
  private nextId = 1;
  private buffered: Buffer = Buffer.alloc(0);
  private deadReason: string | undefined;

  private constructor(
    private readonly helper: ChildProcess,
    private readonly server: Server,
    private readonly dir: string,
    private readonly socketPath: string,
  ) {
    helper.stdout!.on('data', (chunk: Buffer) => this.onReplies(chunk));
    helper.stdin!.on('error', () => undefined);
    helper.once('close', () => this.die('the sandbox spawner ended'));
    helper.once('error', (err) => this.die(`the sandbox spawner failed: ${err.message}`));
    server.on('connection', (socket) => this.onConnection(socket));
    // Neither keeps the process alive: a request in flight does (ref below), as a child process of node's own would.
    helper.unref();
    for (const s of [helper.stdin, helper.stdout, helper.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    server.unref();
  }

  /** Starts the helper and the socket it connects back to (a private folder, removed when this process exits). */
  static async start(binary: string): Promise<Spawner> {
    // A socket's path holds at most 107 bytes: a long TMPDIR falls back to spawnerFallbackDir.
    const base = Buffer.byteLength(join(tmpdir(), `${spawnerPrefix}${process.pid}-XXXXXX`, 's')) <= 107 ? tmpdir() : spawnerFallbackDir;
    const dir = mkdtempSync(join(base, `${spawnerPrefix}${process.pid}-`));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 's');
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    const helper = spawn(binary, ['--spawner'], { env: { PATH: process.env.PATH ?? defaultPath }, stdio: ['pipe', 'pipe', 'inherit'] });
    return new Spawner(helper, server, dir, path);
  }

  get dead(): boolean {
    return this.deadReason !== undefined;
  }

  /** `launchArgs`: what the channel binary's `--launch` takes (rlimits, cgroup joins, `--`, bwrap and its argv). */
  spawn(launchArgs: string[], cwd: string): Promise<SpawnedSandbox> {
    if (this.deadReason) return Promise.reject(new Error(this.deadReason));
    const id = this.nextId++;
    const token = randomBytes(tokenLength / 2).toString('hex');
    const strings = [this.socketPath, token, cwd, process.env.PATH ?? defaultPath, ...launchArgs];
    if (strings.some((s) => s.includes('\0'))) return Promise.reject(new Error('a sandbox argument holds a NUL byte'));
    return new Promise<SpawnedSandbox>((resolve, reject) => {
      let ended: (status: number) => void = () => undefined;
      const exited = new Promise<number>((r) => (ended = r));
      const timer = setTimeout(() => entry.failed(new Error(`the sandbox did not connect within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      const entry: Entry = {
        id, token, sockets: {}, stderr: '', exited, done: false,
        started: (s) => { clearTimeout(timer); resolve(s); },
        failed: (err) => {
          clearTimeout(timer);
          this.send(id, 'K');
          for (const s of Object.values(entry.sockets)) s?.destroy();
          this.byToken.delete(token);
          reject(err);
        },
        ended,
      };
      this.entries.set(id, entry);
      this.byToken.set(token, entry);
      this.updateRef();
      this.send(id, 'S', Buffer.from(strings.map((s) => `${s}\0`).join('')));
    });
  }

  private send(id: number, op: 'S' | 'K', payload = Buffer.alloc(0)): void {
    if (this.deadReason) return;
    const head = Buffer.alloc(9);
    head.writeUInt32LE(payload.length, 0);
    head.writeUInt32LE(id, 4);
    head.writeUInt8(op.charCodeAt(0), 8);
    this.helper.stdin!.write(Buffer.concat([head, payload]));
  }

  private onReplies(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    while (this.buffered.length >= 9) {
      const len = this.buffered.readUInt32LE(0);
      if (this.buffered.length < 9 + len) return;
      const id = this.buffered.readUInt32LE(4);
      const op = String.fromCharCode(this.buffered.readUInt8(8));
      const payload = this.buffered.subarray(9, 9 + len);
      this.buffered = this.buffered.subarray(9 + len);
      const entry = this.entries.get(id);
      if (!entry) continue;
      if (op === 'P') {
        entry.pid = payload.readInt32LE(0);
        entry.connected = payload.readUInt8(4) === 1;
        this.maybeStarted(entry);
      } else if (op === 'F') {
        entry.failed(new Error(`the sandbox could not be started: ${payload.toString()}`));
        this.finish(entry, 255);
      } else if (op === 'X') {
        this.finish(entry, payload.readInt32LE(0));
      }
    }
  }

  private onConnection(socket: Socket): void {
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), connectTimeoutMs);
    const onReadable = (): void => {
      const head = socket.read(tokenLength + 1) as Buffer | null;
      if (head === null) return;
      socket.off('readable', onReadable);
      clearTimeout(timer);
      const entry = this.byToken.get(head.subarray(0, tokenLength).toString('latin1'));
      const group = String.fromCharCode(head[tokenLength]!) as FdGroup;
      // Only the process we started knows the token, and each of its fd groups connects once.
      if (!entry || !fdGroups.includes(group) || entry.sockets[group]) {
        socket.destroy();
        return;
      }
      entry.sockets[group] = socket;
      this.maybeEnded(entry);
      if (group === 'e') {
        // Read from the start, so a launcher that fails before the sandbox is handed over still says why.
        socket.on('data', (c: Buffer) => (entry.stderr = (entry.stderr + c.toString()).slice(-2000)));
        socket.once('close', () => this.maybeEnded(entry));
      }
      this.maybeStarted(entry);
    };
    socket.on('readable', onReadable);
  }

  private complete(entry: Entry): boolean {
    return entry.pid !== undefined && fdGroups.every((g) => entry.sockets[g] !== undefined);
  }

  private maybeStarted(entry: Entry): void {
    // A process that already ended is still handed over: its end (and what it said) is the caller's to read.
    if (!this.complete(entry)) return;
    this.byToken.delete(entry.token);
    const { a, r } = entry.sockets as Record<FdGroup, Socket>;
    entry.started({ pid: entry.pid!, agent: a, root: r, diagnostics: () => entry.stderr, exited: entry.exited, kill: () => { if (entry.status === undefined) this.send(entry.id, 'K'); } });
  }

  private finish(entry: Entry, status: number): void {
    entry.status = status;
    this.maybeEnded(entry);
  }

  /** Ended once the helper reported its exit and its stderr closed (or never connected): all it said was read. */
  private maybeEnded(entry: Entry): void {
    if (entry.done || entry.status === undefined) return;
    // A process that connected is final only once its connections were accepted, and all its stderr was read.
    if (entry.connected && !this.complete(entry)) return;
    const e = entry.sockets.e;
    if (e && !e.closed) return;
    entry.done = true;
    this.entries.delete(entry.id);
    this.byToken.delete(entry.token);
    this.updateRef();
    // Ended before it connected all three: the launcher or bwrap failed, and its stderr (when connected) says why.
    if (!this.complete(entry)) entry.failed(new Error(`the sandbox ended before it connected (status ${entry.status}): ${entry.stderr.trim().slice(0, 500)}`));
    entry.ended(entry.status);
  }

  /** The helper's replies keep this process alive only while a sandbox it started may still report. */
  private updateRef(): void {
    const out = this.helper.stdout as unknown as { ref(): void; unref(): void };
    if (this.entries.size > 0) out.ref();
    else out.unref();
  }

  private die(reason: string): void {
    if (this.deadReason) return;
    this.deadReason = reason;
    this.server.close();
    for (const entry of [...this.entries.values()]) {
      // Its processes were killed with the helper (their parent-death signal), and no connection can come any more.
      if (!this.complete(entry)) entry.failed(new Error(reason));
      entry.connected = false;
      entry.status ??= 128 + 9;
      entry.sockets.e?.destroy();
      this.maybeEnded(entry);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const spawners = new Map<string, Promise<Spawner>>();

/** One helper per channel binary for this process, started on first use and again if it ever ended. */
export async function sharedSpawner(binary: string): Promise<Spawner> {
  const known = spawners.get(binary);
  if (known) {
    const s = await known.catch(() => undefined);
    if (s && !s.dead) return s;
  }
  const next = Spawner.start(binary);
  spawners.set(binary, next);
  next.catch(() => spawners.delete(binary));
  return next;
}
