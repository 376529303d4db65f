import { verifierPaths } from '../../core/ports/sandbox.js';
import type { SandboxChannels } from '../channel/channelExec.js';
import { channelDir, channelPath } from './dockerChannel.js';
import { agentUid } from './tarFiles.js';

/**
 * A container serves another rollout only after the scrub (supervisor.c, `--scrub`) put back everything a rollout
 * can change in it: with a read-only root and no capability to mount, that is the writable mounts below, the
 * processes and the SysV IPC objects. Each folder is emptied without following a link or crossing a mount, and its
 * own inode gets back the owner, mode and (no) extended attributes and ACLs it was created with. What the scrub
 * does not reset (/dev's entries, the mount table) is fingerprinted and must match the container's first
 * fingerprint, or the container is removed. Folders an image does not have are skipped.
 */
export function scrubFolders(workdir: string): string[] {
  const agent = `${agentUid}:${agentUid}`;
  return [
    `${workdir}:0755:${agent}`,
    '/tmp:1777:0:0',
    `${verifierPaths.tests}:0755:0:0`,
    `${verifierPaths.logs}:0755:0:0`,
    `${verifierPaths.agentLogs}:0755:${agent}`,
    `${verifierPaths.artifacts}:0755:${agent}`,
    '/dev/shm:1777:0:0',
    '/dev/mqueue:1777:0:0',
    // The supervisor itself stays (bind-mounted or copied in); anything a root command put beside it goes.
    `${channelDir}:0700:0:0:channel`,
  ];
}

/** How long a scrub may take (a workspace of many small files); past it the container is removed instead. */
const scrubTimeoutMs = 60_000;

async function runScrub(channels: SandboxChannels, args: string[]): Promise<string | undefined> {
  const r = await channels.root.run({ argv: [channelPath, '--scrub', ...args], cwd: '/', timeoutMs: scrubTimeoutMs, maxOutputBytes: 64 * 1024, verifier: true });
  const m = /^fingerprint ([0-9a-f]{16})$/m.exec(r.stdout);
  return r.exitCode === 0 && !r.timedOut && m ? m[1] : undefined;
}

/** The fingerprint of a container as created, taken through its root channel before anything ran in it. */
export function firstFingerprint(channels: SandboxChannels): Promise<string | undefined> {
  return runScrub(channels, ['--fingerprint-only']).catch(() => undefined);
}

/**
 * Ends a lease: the agent channel closed (its supervisor ends its commands and exits), then the scrub through the
 * root channel, which is closed after it. True when the container is as it was created; the channels are never
 * used again either way (one channel never serves two rollouts).
 */
export async function scrubContainer(channels: SandboxChannels, workdir: string, fingerprint: string): Promise<boolean> {
  channels.agent.close();
  try {
    const now = await runScrub(channels, scrubFolders(workdir).flatMap((f) => ['--wipe', f]));
    return now === fingerprint;
  } catch {
    return false;
  } finally {
    channels.root.close();
  }
}
