/**
 * The command channel's wire format, shared with supervisor.c (whose constants must match). Every frame is a
 * 12-byte header — type (u8), three zero bytes, request id (u32 LE), payload length (u32 LE) — and the payload.
 * Command output only ever travels inside OUT/ERR frames with their length, so nothing a command prints can be
 * taken for the end of a reply.
 */

export const frameType = {
  run: 1,
  stdin: 2,
  cancel: 3,
  endAll: 4,
  hello: 0x80,
  out: 0x81,
  err: 0x82,
  exit: 0x83,
  ack: 0x84,
  fatal: 0x85,
  skip: 0x86,
  done: 0x87,
} as const;

export const runFlag = { stdin: 1, session: 2, verifier: 4 } as const;

export const exitFlag = {
  timedOut: 1,
  cancelled: 2,
  flooded: 4,
  spawnFailed: 8,
  session: 16,
  restarted: 32,
  killFailed: 64,
} as const;

export const headerBytes = 12;
/** The supervisor refuses larger frames; stdin is sent in chunks well below it. */
export const maxFrameBytes = 16 * 1024 * 1024;

export interface Frame {
  type: number;
  id: number;
  payload: Buffer;
}

export interface RunRequest {
  argv: readonly string[];
  /** Absolute directory inside the sandbox; empty: the supervisor's own. */
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Total bytes of stdout + stderr after which the command is stopped. */
  floodBytes: number;
  stdin: boolean;
  /** Run in the agent's session shell (the argv is then one command string). */
  session: boolean;
  /** bwrap: a verifier command, the only kind that sees /tests and /logs/verifier. */
  verifier: boolean;
}

export interface ExitInfo {
  code: number;
  flags: number;
  durationUs: number;
  stdoutTotal: number;
  stderrTotal: number;
  /** How many times this channel's session shell has been restarted, this one included. */
  sessionRestarts: number;
  message: string;
}

export function encodeFrame(type: number, id: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const out = Buffer.allocUnsafe(headerBytes + payload.length);
  out.writeUInt8(type, 0);
  out.writeUInt8(0, 1);
  out.writeUInt16LE(0, 2);
  out.writeUInt32LE(id >>> 0, 4);
  out.writeUInt32LE(payload.length, 8);
  out.set(payload, headerBytes);
  return out;
}

/** A string field: u32 length and the UTF-8 bytes. NUL cannot cross (no C string holds it); callers check first. */
function field(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32LE(bytes.length, 0);
  return Buffer.concat([len, bytes]);
}

function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(n >>> 0, 0);
  return b;
}

function u64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64LE(BigInt(Math.max(0, Math.floor(n))), 0);
  return b;
}

/** Where a request holds a NUL byte, which no argv, path or environment entry can carry; undefined when none. */
export function nulProblem(req: Pick<RunRequest, 'argv' | 'cwd' | 'env'>): string | undefined {
  if (req.argv.some((a) => a.includes('\0'))) return 'the command holds a NUL byte';
  if (req.cwd.includes('\0')) return 'the working directory holds a NUL byte';
  for (const [k, v] of Object.entries(req.env)) if (k.includes('\0') || v.includes('\0') || k.includes('=') || k === '') return `the environment variable "${k.replace(/\0/g, '\\0')}" cannot be set`;
  return undefined;
}

export function encodeRun(id: number, req: RunRequest): Buffer {
  const flags = (req.stdin ? runFlag.stdin : 0) | (req.session ? runFlag.session : 0) | (req.verifier ? runFlag.verifier : 0);
  const env = Object.entries(req.env).map(([k, v]) => `${k}=${v}`);
  const payload = Buffer.concat([
    u32(flags),
    u32(Math.min(0xffffffff, Math.max(0, Math.round(req.timeoutMs)))),
    u64(req.maxOutputBytes),
    u64(req.floodBytes),
    field(req.cwd),
    u32(req.argv.length),
    ...req.argv.map(field),
    u32(env.length),
    ...env.map(field),
  ]);
  return encodeFrame(frameType.run, id, payload);
}

export function decodeExit(payload: Buffer): ExitInfo {
  if (payload.length < 36) throw new Error(`EXIT frame of ${payload.length} bytes is too short`);
  return {
    code: payload.readInt32LE(0),
    flags: payload.readUInt32LE(4),
    durationUs: Number(payload.readBigUInt64LE(8)),
    stdoutTotal: Number(payload.readBigUInt64LE(16)),
    stderrTotal: Number(payload.readBigUInt64LE(24)),
    sessionRestarts: payload.readUInt32LE(32),
    message: payload.subarray(36).toString('utf8'),
  };
}

/** Bytes as text for an error message: printable ASCII kept, the rest as dots. */
function printable(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/[^\x20-\x7e]/g, '.');
}

/** Splits a byte stream into frames; throws on a frame no supervisor would send. */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  push(chunk: Buffer): Frame[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < headerBytes) return [];
    let data = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    const frames: Frame[] = [];
    while (data.length >= headerBytes) {
      const len = data.readUInt32LE(8);
      // Output frames carry at most a 64 KiB read or a kept tail; the ring is at most 4 MiB.
      if (len > maxFrameBytes) throw new Error(`the supervisor sent a frame of ${len} bytes (not a frame: "${printable(data.subarray(0, 200))}")`);
      if (data.length < headerBytes + len) break;
      frames.push({ type: data.readUInt8(0), id: data.readUInt32LE(4), payload: data.subarray(headerBytes, headerBytes + len) });
      data = data.subarray(headerBytes + len);
    }
    this.pending = data.length > 0 ? [data] : [];
    this.pendingBytes = data.length;
    return frames;
  }
}
