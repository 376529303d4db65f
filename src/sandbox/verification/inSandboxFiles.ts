import { pack } from 'tar-stream';
import type { CollectedLogs, Command, ExecOptions, ExecResult, TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import { SandboxFaultError, verifierPaths } from '../../core/ports/sandbox.js';
import type { Cancellation } from '../../core/ports/cancellation.js';
import type { SandboxFile, SandboxLimits } from '../../core/spec/environment.js';
import { parseMode } from '../local/workspaceDir.js';
import { sanitiseWorkspaceTar } from '../transfer/sanitiseWorkspace.js';
import { collectedLogCaps, parseCollectedLogs } from '../transfer/collectLogs.js';
import { agentUid } from '../docker/tarFiles.js';

export type ExecResultWithBytes = ExecResult & { stdoutBytes: Buffer };

/** What the shared file operations need of a backend: an exec that also returns stdout's raw bytes. */
export interface ByteExec {
  execBytes(command: Command, options: ExecOptions): Promise<ExecResultWithBytes>;
}

const helperTimeoutMs = 120_000;

/**
 * Files go in through `tar -x` run inside the sandbox (I4): the host never creates a path in it. Workspace files
 * are extracted as the agent user, so a link planted there can lead nowhere the agent could not write anyway;
 * verifier files as root into /tests, which nothing but verifier commands sees.
 */
export async function putFilesInside(box: ByteExec, files: SandboxFile[], dir: string, under: 'workspace' | 'tests', signal?: Cancellation): Promise<void> {
  if (files.length === 0) return;
  const uid = under === 'tests' ? 0 : agentUid;
  const tar = await tarBytes(files, uid);
  // -o: do not restore the archive's owner (GNU and busybox read it so on extraction); the extracting user owns them.
  const r = await box.execBytes(['tar', '-x', '-o', '-f', '-', '-C', dir], { as: under === 'tests' ? 'verifier' : 'agent', stdin: tar, timeoutMs: helperTimeoutMs, maxOutputBytes: 64 * 1024, ...(signal ? { signal } : {}) });
  if (r.exitCode !== 0) throw new SandboxFaultError(`could not write ${files.length} file(s) under ${dir} in the sandbox (tar exit ${r.exitCode}): ${r.stderr.trim().slice(0, 500)}`);
}

/** Reads a regular file through `cat` in the sandbox; links, FIFOs and folders read as absent. */
export async function getFileInside(box: ByteExec, path: string, maxBytes: number, signal?: Cancellation): Promise<Buffer | undefined> {
  const r = await box.execBytes(['/bin/sh', '-c', '[ -f "$1" ] && [ ! -L "$1" ] || exit 3; exec cat -- "$1"', 'sh', path], { as: 'verifier', timeoutMs: helperTimeoutMs, maxOutputBytes: maxBytes, ...(signal ? { signal } : {}) });
  if (r.exitCode === 3) return undefined;
  if (r.exitCode !== 0) throw new SandboxFaultError(`could not read ${path} in the sandbox (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
  if (r.truncated) throw new SandboxFaultError(`${path} in the sandbox is larger than ${maxBytes} bytes`);
  return r.stdoutBytes;
}

/** `tar -c` of the workdir inside the sandbox (links archived as links), then the sanitising transfer on the host. */
export async function exportWorkspaceInside(box: ByteExec, workdir: string, limits: SandboxLimits, signal?: Cancellation): Promise<WorkspaceArchive> {
  const maxBytes = limits.diskMb * 1024 * 1024;
  // Headers and padding add about 1 KiB per entry on top of the content.
  const cap = Math.ceil(maxBytes * 1.25) + 64 * 1024 * 1024;
  const r = await box.execBytes(['tar', '-c', '-f', '-', '-C', workdir, '.'], { as: 'verifier', timeoutMs: helperTimeoutMs, maxOutputBytes: cap, ...(signal ? { signal } : {}) });
  if (r.truncated) throw new SandboxFaultError(`the workspace archive is larger than ${cap} bytes; nothing was handed to the verifier`);
  // GNU tar exits 1 when a file changed while it was read; the archive is still whole.
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new SandboxFaultError(`could not archive the workspace ${workdir} (tar exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
  return sanitiseWorkspaceTar(r.stdoutBytes, { workdir, maxBytes });
}

/** Extracts a sanitised archive into the (empty) workdir, as the agent user. */
export async function importWorkspaceInside(box: ByteExec, archive: WorkspaceArchive, workdir: string, signal?: Cancellation): Promise<void> {
  const r = await box.execBytes(['tar', '-x', '-o', '-f', '-', '-C', workdir], { as: 'agent', stdin: archive.tar, timeoutMs: helperTimeoutMs, maxOutputBytes: 64 * 1024, ...(signal ? { signal } : {}) });
  if (r.exitCode !== 0) throw new SandboxFaultError(`could not copy the workspace into the verifier's sandbox (tar exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
}

/**
 * In place: removes every link whose `readlink -f` leaves the workdir or dangles, and every FIFO, socket and
 * device. The kernel resolves the links, in the very namespace the verifier will use, so the rule is exact.
 */
const sweepScript = `W=$1
find "$W" \\( -type l -o -type p -o -type s -o -type b -o -type c \\) -exec sh -c '
W=$1; shift
for p in "$@"; do
  if [ -L "$p" ] && [ -e "$p" ]; then
    t=$(readlink -f -- "$p" 2>/dev/null) && case "$t" in "$W"|"$W"/*) continue;; esac
  fi
  rm -f -- "$p" && printf "%s\\n" "\${p#"$W"/}"
done' sh "$W" {} +`;

export async function sweepWorkspaceInside(box: ByteExec, workdir: string, signal?: Cancellation): Promise<TransferReport> {
  const r = await box.execBytes(['/bin/sh', '-c', sweepScript, 'sh', workdir.replace(/\/+$/, '')], { as: 'verifier', timeoutMs: helperTimeoutMs, maxOutputBytes: 1024 * 1024, ...(signal ? { signal } : {}) });
  if (r.exitCode !== 0) throw new SandboxFaultError(`could not sweep the workspace ${workdir} (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
  const removed = r.stdout.split('\n').filter(Boolean);
  return {
    kept: 0,
    bytes: 0,
    dropped: removed.slice(0, 50).map((path) => ({ path, reason: 'link leaving the workspace, dangling link or special file (removed in place)' })),
    droppedCount: removed.length,
  };
}

/** Empties /tests and /logs/verifier; rm -r removes links, it never follows them. */
export async function resetVerifierDirsInside(box: ByteExec, signal?: Cancellation): Promise<void> {
  const dirs = [verifierPaths.tests, verifierPaths.logs];
  const r = await box.execBytes(['/bin/sh', '-c', 'for d in "$@"; do mkdir -p "$d" && rm -rf -- "$d"/* "$d"/.[!.]* "$d"/..?*; done', 'sh', ...dirs], { as: 'verifier', timeoutMs: helperTimeoutMs, maxOutputBytes: 64 * 1024, ...(signal ? { signal } : {}) });
  if (r.exitCode !== 0) throw new SandboxFaultError(`could not empty ${dirs.join(' and ')} in the sandbox (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
}

/**
 * Harbor's agent-side folders, read after the agent's last process ended: `tar -c` inside the sandbox (links
 * archived as links), parsed on the host as data. A sandbox without the folders collects nothing.
 */
export async function collectLogsInside(box: ByteExec, signal?: Cancellation): Promise<CollectedLogs> {
  const script = 'cd /logs 2>/dev/null || exit 0; set --; for d in agent artifacts; do [ -d "$d" ] && [ ! -L "$d" ] && set -- "$@" "$d"; done; [ $# -gt 0 ] || exit 0; exec tar -c -f - "$@"';
  const cap = 4 * collectedLogCaps.totalBytes + 1024 * 1024;
  const r = await box.execBytes(['/bin/sh', '-c', script], { as: 'verifier', timeoutMs: helperTimeoutMs, maxOutputBytes: cap, ...(signal ? { signal } : {}) });
  if (r.truncated) return { files: [], dropped: [{ path: 'agent', reason: `/logs/agent and /logs/artifacts hold more than ${cap} bytes; nothing collected` }] };
  if (r.exitCode !== 0 && r.exitCode !== 1) return { files: [], dropped: [{ path: 'agent', reason: `could not archive /logs/agent and /logs/artifacts (tar exit ${r.exitCode})` }] };
  if (r.stdoutBytes.length === 0) return { files: [], dropped: [] };
  return parseCollectedLogs(r.stdoutBytes).catch(() => ({ files: [], dropped: [{ path: 'agent', reason: 'the archive of /logs/agent and /logs/artifacts does not parse; nothing collected' }] }));
}

/** Extracts the image's own workdir files (readImageWorkdir) into the workspace: as the agent user, or as root keeping the image's owners for root agents. */
export async function seedWorkspaceInside(box: ByteExec, tar: Buffer, workdir: string, asRoot: boolean, signal?: Cancellation): Promise<void> {
  const argv = asRoot ? ['tar', '-x', '-p', '-f', '-', '-C', workdir] : ['tar', '-x', '-o', '-f', '-', '-C', workdir];
  const r = await box.execBytes(argv, { as: asRoot ? 'setup' : 'agent', stdin: tar, timeoutMs: helperTimeoutMs, maxOutputBytes: 64 * 1024, ...(signal ? { signal } : {}) });
  if (r.exitCode !== 0) throw new SandboxFaultError(`could not copy the image's files at ${workdir} into the workspace (tar exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}`);
}

async function tarBytes(files: SandboxFile[], uid: number): Promise<Buffer> {
  const tar = pack();
  const dirs = new Set<string>();
  const mtime = new Date();
  const owner = { uid, gid: uid };
  for (const file of files) {
    const name = file.path.replace(/^\.\//, '');
    if (name.startsWith('/') || name.split('/').includes('..')) throw new Error(`file path "${file.path}" leaves its folder; use a path relative to it`);
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!dirs.has(dir)) {
        dirs.add(dir);
        tar.entry({ name: `${dir}/`, type: 'directory', mode: 0o755, mtime, ...owner });
      }
    }
    tar.entry({ name, mode: parseMode(file.mode), mtime, ...owner }, Buffer.from(file.content, 'utf8'));
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const c of tar as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
