import type { Cancellation } from '../../core/ports/cancellation.js';
import type { Sandbox, SandboxBackend, SandboxRequest } from '../../core/ports/sandbox.js';
import type { DockerBackend, SandboxShape } from './dockerBackend.js';
import type { DockerSandbox } from './dockerSandbox.js';

export interface WarmPoolOptions {
  /** Started, empty sandboxes kept ready per shape (image, workdir, env, limits). */
  size: number;
  /** Shapes kept warm at once; the least recently used shape is emptied first. */
  maxShapes?: number;
  /** Labels of the warm containers (the run); a rollout label cannot be added after creation. */
  labels?: Record<string, string>;
  /** Background refill failures (e.g. a missing image) are reported here and the pool stops refilling that shape. */
  onError?: (err: unknown) => void;
  /**
   * Scrub a container after its rollout and hand it to a later one, with new channels (default true; recycle.ts
   * says what the scrub resets). false: every container serves one rollout and is removed. Root-agent shapes are
   * never recycled.
   */
  recycle?: boolean;
  /** Rollouts one container serves at most before it is removed (default 50). */
  maxUses?: number;
}

interface ShapeState {
  shape: SandboxShape;
  idle: DockerSandbox[];
  starting: number;
  /** Containers being scrubbed for another rollout. */
  recycling: number;
  /** Rollouts waiting for one of those (a scrub takes milliseconds, a new container far longer). */
  waiters: ((sandbox: DockerSandbox | undefined) => void)[];
  lastUsed: number;
  failed: boolean;
}

/**
 * Pre-started containers handed out to rollouts, refilled in the background. Acquiring a warm one costs only
 * writing the rollout's files and running its setup. After its rollout a container is scrubbed back to the state it
 * was created in and joins the idle ones (new channels for every rollout), so a rollout costs no container create,
 * start or removal; one that cannot be scrubbed, or served maxUses rollouts, is removed.
 */
export class WarmPool implements SandboxBackend {
  readonly name = 'docker' as const;
  private readonly shapes = new Map<string, ShapeState>();
  private disposed = false;
  private readonly pending = new Set<Promise<void>>();

  constructor(readonly backend: DockerBackend, private readonly options: WarmPoolOptions) {}

  /** Idle sandboxes ready now, over all shapes. */
  get idleCount(): number {
    let n = 0;
    for (const s of this.shapes.values()) n += s.idle.length;
    return n;
  }

  async start(request: SandboxRequest, options: { signal?: Cancellation } = {}): Promise<Sandbox> {
    const state = this.stateOf(request);
    state.lastUsed = Date.now();
    const ready = state.idle.shift() ?? (state.recycling > 0 ? await this.nextRecycled(state) : undefined);
    this.refill(state);
    const sandbox = ready ?? (await this.adopt(state, await this.backend.launch(state.shape, this.labels(request), options.signal)));
    try {
      await this.backend.provision(sandbox, request, options.signal);
      return sandbox;
    } catch (err) {
      await sandbox.stop();
      throw err;
    }
  }

  /** Fills the pool for a shape and resolves when it is full (benchmarks and run start use it). */
  async prewarm(shape: SandboxShape): Promise<void> {
    const state = this.stateOf(shape);
    const missing = this.options.size - state.idle.length - state.starting;
    await Promise.all(Array.from({ length: Math.max(0, missing) }, () => this.launchOne(state)));
    // Launches already in flight count too: wait for them rather than report a pool that is not ready yet.
    while (state.starting > 0 && !this.disposed && !state.failed) await new Promise((r) => setTimeout(r, 5));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const idle = [...this.shapes.values()].flatMap((s) => s.idle.splice(0));
    await Promise.all(idle.map((s) => s.destroy()));
    await this.backend.dispose();
    // Sandboxes stopped meanwhile went to recycle(), which removes them once the pool is disposed.
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Containers scrubbed and handed out again so far (benchmarks and tests read it). */
  recycled = 0;

  /** The next container a scrub gives back, or undefined when none comes back within a short while. */
  private nextRecycled(state: ShapeState): Promise<DockerSandbox | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        state.waiters = state.waiters.filter((w) => w !== hand);
        resolve(undefined);
      }, recycleWaitMs);
      const hand = (s: DockerSandbox | undefined): void => {
        clearTimeout(timer);
        resolve(s);
      };
      state.waiters.push(hand);
    });
  }

  /** Makes a freshly launched sandbox recyclable: its first fingerprint, and stop() coming back here. */
  private async adopt(state: ShapeState, sandbox: DockerSandbox): Promise<DockerSandbox> {
    if (this.options.recycle === false || state.shape.agentUser === 'root' || state.shape.workdir.includes(':')) return sandbox;
    if (await sandbox.recordFingerprint()) sandbox.recycler = (s) => this.recycle(state, s);
    return sandbox;
  }

  /** A stopped sandbox: scrubbed and made a new idle lease, or removed. */
  private recycle(state: ShapeState, old: DockerSandbox): void {
    state.recycling++;
    const job = (async (): Promise<void> => {
      try {
        const wanted = (): boolean => !this.disposed && this.shapes.get(shapeKey(state.shape)) === state && state.idle.length < 2 * Math.max(1, this.options.size);
        if (wanted() && old.uses < (this.options.maxUses ?? 50) && (await old.scrub()) && wanted()) {
          const next = await this.backend.relaunch(old);
          if (next) {
            next.recycler = (s) => this.recycle(state, s);
            const waiter = this.disposed ? undefined : state.waiters.shift();
            if (waiter || wanted()) {
              this.recycled++;
              if (waiter) waiter(next);
              else state.idle.push(next);
              return;
            }
            await next.destroy();
            return;
          }
          return;
        }
        await old.destroy();
      } catch {
        await old.destroy().catch(() => undefined);
      } finally {
        state.recycling--;
        // Nothing more is coming back for those still waiting: they launch a container of their own.
        if (state.recycling === 0) for (const w of state.waiters.splice(0)) w(undefined);
      }
    })();
    this.track(job);
  }

  /** Background work dispose() waits for, so nothing it creates outlives the pool. */
  private track(job: Promise<void>): void {
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  private labels(request: SandboxRequest | SandboxShape): Record<string, string> {
    return { ...this.options.labels, ...('labels' in request ? request.labels : {}) };
  }

  private stateOf(shape: SandboxShape): ShapeState {
    const key = shapeKey(shape);
    let state = this.shapes.get(key);
    if (!state) {
      state = { shape: { image: shape.image, workdir: shape.workdir, env: shape.env, limits: shape.limits, ...(shape.agentUser ? { agentUser: shape.agentUser } : {}) }, idle: [], starting: 0, recycling: 0, waiters: [], lastUsed: Date.now(), failed: false };
      this.shapes.set(key, state);
      this.evictShapes();
    }
    return state;
  }

  private evictShapes(): void {
    const max = this.options.maxShapes ?? 4;
    while (this.shapes.size > max) {
      const [oldestKey, oldest] = [...this.shapes.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0] as [string, ShapeState];
      this.shapes.delete(oldestKey);
      for (const s of oldest.idle.splice(0)) s.destroy().catch(() => undefined);
    }
  }

  private refill(state: ShapeState): void {
    const missing = this.options.size - state.idle.length - state.starting - state.recycling;
    for (let i = 0; i < missing && !state.failed; i++) this.track(this.launchOne(state).catch(() => undefined));
  }

  private async launchOne(state: ShapeState): Promise<void> {
    if (this.disposed) return;
    state.starting++;
    try {
      // Warm containers carry only the pool's labels: they belong to the run, not yet to a rollout.
      const sandbox = await this.adopt(state, await this.backend.launch(state.shape, this.options.labels ?? {}));
      if (this.disposed || !this.shapes.has(shapeKey(state.shape))) await sandbox.destroy();
      else state.idle.push(sandbox);
    } catch (err) {
      state.failed = true;
      this.options.onError?.(err);
      throw err;
    } finally {
      state.starting--;
    }
  }
}

/** How long a rollout waits for a container being scrubbed before it launches one. */
const recycleWaitMs = 3000;

/** The pool's key for a shape: everything a container is created from. */
function shapeKey(shape: SandboxShape): string {
  return JSON.stringify([shape.image, shape.workdir, shape.env, shape.limits, shape.agentUser ?? 'nobody']);
}
