import type { Cancellation } from '../../core/ports/cancellation.js';
import { CancelledError, throwIfCancelled } from '../../core/ports/cancellation.js';
import { SandboxHostLostError } from '../../core/ports/sandbox.js';
import type { Command, ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxRequest, TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { DockerBackend } from './dockerBackend.js';
import type { DockerBackendOptions } from './dockerBackend.js';
import { WarmPool } from './warmPool.js';

export interface DockerHostEntry {
  url: string;
  maxContainers: number;
  tlsDir?: string;
}

export interface DockerHostPoolOptions extends Omit<DockerBackendOptions, 'url' | 'tlsDir' | 'docker'> {
  /** Warm sandboxes per shape on each host (0: none). */
  warmPool?: number;
  /** How often a drained host is pinged to see whether it is back. */
  recheckMs?: number;
  /** Told when a host is drained or comes back. */
  onHostChange?: (host: string, state: 'drained' | 'back', reason?: string) => void;
}

export interface HostState {
  url: string;
  maxContainers: number;
  active: number;
  drained: boolean;
  reason?: string;
}

interface Host extends HostState {
  backend: DockerBackend;
  starter: SandboxBackend;
}

/**
 * One sandbox backend over several Docker engines. `start` places each sandbox on the healthy host with the lowest
 * load (active / maxContainers), waits when every host is full, and drains a host that stops answering.
 *
 * Retrying: a sandbox whose host dies fails its next call with SandboxHostLostError (`retryable: true`). The caller
 * stops that sandbox and replays the rollout from the start with a new `start` on this same pool, which places it on
 * the remaining hosts. A failed `start` is retried here already, on the next host.
 */
export class DockerHostPool implements SandboxBackend {
  readonly name = 'docker' as const;
  private readonly hosts: Host[];
  private readonly waiters: (() => void)[] = [];
  private readonly recheck: NodeJS.Timeout;

  constructor(entries: DockerHostEntry[], private readonly options: DockerHostPoolOptions = {}) {
    if (entries.length === 0) throw new Error('a Docker host pool needs at least one host (RunConfig.sandbox.hosts)');
    this.hosts = entries.map((e) => {
      const backend = new DockerBackend({ ...options, url: e.url, tlsDir: e.tlsDir });
      const starter = options.warmPool ? new WarmPool(backend, { size: options.warmPool, labels: options.labels }) : backend;
      return { url: e.url, maxContainers: e.maxContainers, active: 0, drained: false, backend, starter };
    });
    this.recheck = setInterval(() => void this.recheckDrained(), options.recheckMs ?? 5000);
    this.recheck.unref();
  }

  /** Load and health of every host, for status displays and tests. */
  status(): HostState[] {
    return this.hosts.map(({ url, maxContainers, active, drained, reason }) => ({ url, maxContainers, active, drained, reason }));
  }

  async start(request: SandboxRequest, options: { signal?: Cancellation } = {}): Promise<Sandbox> {
    for (;;) {
      throwIfCancelled(options.signal);
      const host = this.place();
      if (!host) {
        if (this.hosts.every((h) => h.drained)) {
          throw new SandboxHostLostError(this.hosts.map((h) => h.url).join(', '), new Error(`every Docker host is drained: ${this.hosts.map((h) => `${h.url}: ${h.reason}`).join('; ')}`));
        }
        await this.waitForSlot(options.signal);
        continue;
      }
      host.active++;
      try {
        const sandbox = await host.starter.start(request, options);
        return new PlacedSandbox(sandbox, () => this.release(host), (err) => this.drain(host, err));
      } catch (err) {
        this.release(host);
        if (err instanceof SandboxHostLostError) {
          this.drain(host, err);
          continue;
        }
        throw err;
      }
    }
  }

  async reap(isAlive?: (labels: Record<string, string>) => boolean): Promise<{ containers: number; volumes: number }> {
    const total = { containers: 0, volumes: 0 };
    for (const h of this.hosts.filter((x) => !x.drained)) {
      const r = await h.backend.reap(isAlive).catch(() => ({ containers: 0, volumes: 0 }));
      total.containers += r.containers;
      total.volumes += r.volumes;
    }
    return total;
  }

  async dispose(): Promise<void> {
    clearInterval(this.recheck);
    await Promise.all(this.hosts.map((h) => h.starter.dispose().catch(() => undefined)));
  }

  /** Least loaded healthy host with a free slot; ties go to the host listed first. */
  private place(): Host | undefined {
    let best: Host | undefined;
    for (const h of this.hosts) {
      if (h.drained || h.active >= h.maxContainers) continue;
      if (!best || h.active / h.maxContainers < best.active / best.maxContainers) best = h;
    }
    return best;
  }

  private release(host: Host): void {
    host.active = Math.max(0, host.active - 1);
    this.waiters.shift()?.();
  }

  private drain(host: Host, err: unknown): void {
    if (host.drained) return;
    host.drained = true;
    host.reason = err instanceof Error ? err.message : String(err);
    this.options.onHostChange?.(host.url, 'drained', host.reason);
    // Whoever waits for a slot must re-check: the last healthy host may just have gone.
    for (const w of this.waiters.splice(0)) w();
  }

  private async recheckDrained(): Promise<void> {
    for (const h of this.hosts.filter((x) => x.drained)) {
      try {
        await h.backend.docker.ping();
        h.drained = false;
        h.reason = undefined;
        this.options.onHostChange?.(h.url, 'back');
        this.waiters.shift()?.();
      } catch {
        // still gone
      }
    }
  }

  private waitForSlot(signal?: Cancellation): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(new CancelledError('cancelled while waiting for a free sandbox slot'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}

/** A sandbox that gives its host slot back when stopped and reports a lost host to the pool. */
class PlacedSandbox implements Sandbox {
  readonly backend = 'docker' as const;
  private released = false;

  constructor(private readonly inner: Sandbox, private readonly onRelease: () => void, private readonly onLost: (err: unknown) => void) {}

  get id(): string {
    return this.inner.id;
  }

  get host(): string {
    return this.inner.host;
  }

  exec(command: Command, options?: ExecOptions): Promise<ExecResult> {
    return this.watch(this.inner.exec(command, options));
  }

  putFiles(files: SandboxFile[], options?: { signal?: Cancellation; under?: 'workspace' | 'tests' }): Promise<void> {
    return this.watch(this.inner.putFiles(files, options));
  }

  endAgentProcesses(options?: { signal?: Cancellation }): Promise<void> {
    return this.watch(this.inner.endAgentProcesses(options));
  }

  exportWorkspace(options?: { signal?: Cancellation }): Promise<WorkspaceArchive> {
    return this.watch(this.inner.exportWorkspace(options));
  }

  importWorkspace(archive: WorkspaceArchive, options?: { signal?: Cancellation }): Promise<void> {
    return this.watch(this.inner.importWorkspace(archive, options));
  }

  sweepWorkspace(options?: { signal?: Cancellation }): Promise<TransferReport> {
    return this.watch(this.inner.sweepWorkspace(options));
  }

  resetVerifierDirs(options?: { signal?: Cancellation }): Promise<void> {
    return this.watch(this.inner.resetVerifierDirs(options));
  }

  getFile(path: string, options?: { signal?: Cancellation }): Promise<Buffer | undefined> {
    return this.watch(this.inner.getFile(path, options));
  }

  async stop(): Promise<void> {
    try {
      await this.inner.stop();
    } finally {
      if (!this.released) {
        this.released = true;
        this.onRelease();
      }
    }
  }

  private async watch<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      if (err instanceof SandboxHostLostError) this.onLost(err);
      throw err;
    }
  }
}
