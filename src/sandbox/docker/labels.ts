import { hostname } from 'node:os';

/** Every container and volume the docker backend creates carries these, so the reaper can find leftovers. */
export const managedLabel = 'coevolve.managed';
export const ownerPidLabel = 'coevolve.owner-pid';
export const ownerHostLabel = 'coevolve.owner-host';
export const sandboxLabel = 'coevolve.sandbox';

export function ownerLabels(): Record<string, string> {
  return { [managedLabel]: '1', [ownerPidLabel]: String(process.pid), [ownerHostLabel]: hostname() };
}

/**
 * The owner of a sandbox is alive when its pid is a live process on this machine. Sandboxes owned by another
 * machine count as alive: this machine cannot tell.
 */
export function ownerIsAlive(labels: Record<string, string>): boolean {
  const host = labels[ownerHostLabel];
  const pid = Number(labels[ownerPidLabel]);
  if (host !== hostname()) return true;
  return pidIsAlive(pid);
}

/** True when a process with this pid runs on this machine (pid reuse aside). */
export function pidIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
