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
}

interface ShapeState {
  shape: SandboxShape;
  idle: DockerSandbox[];
  starting: number;
  lastUsed: number;
  failed: boolean;
}

/**
 * Pre-started containers handed out to rollouts and destroyed after use (never reused), refilled in the
 * background. Acquiring a warm one costs only writing the rollout's files and running its setup.
 */
export class WarmPool implements SandboxBackend {
  readonly name = 'docker' as const;
  private readonly shapes = new Map<string, ShapeState>();
  private disposed = false;

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
    const ready = state.idle.shift();
    this.refill(state);
    const sandbox = ready ?? (await this.backend.launch(state.shape, this.labels(request), options.signal));
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
    await Promise.all(idle.map((s) => s.stop()));
    await this.backend.dispose();
  }

  private labels(request: SandboxRequest | SandboxShape): Record<string, string> {
    return { ...this.options.labels, ...('labels' in request ? request.labels : {}) };
  }

  private stateOf(shape: SandboxShape): ShapeState {
    const key = shapeKey(shape);
    let state = this.shapes.get(key);
    if (!state) {
      state = { shape: { image: shape.image, workdir: shape.workdir, env: shape.env, limits: shape.limits, ...(shape.agentUser ? { agentUser: shape.agentUser } : {}) }, idle: [], starting: 0, lastUsed: Date.now(), failed: false };
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
      for (const s of oldest.idle.splice(0)) s.stop().catch(() => undefined);
    }
  }

  private refill(state: ShapeState): void {
    const missing = this.options.size - state.idle.length - state.starting;
    for (let i = 0; i < missing && !state.failed; i++) this.launchOne(state).catch(() => undefined);
  }

  private async launchOne(state: ShapeState): Promise<void> {
    if (this.disposed) return;
    state.starting++;
    try {
      // Warm containers carry only the pool's labels: they belong to the run, not yet to a rollout.
      const sandbox = await this.backend.launch(state.shape, this.options.labels ?? {});
      if (this.disposed || !this.shapes.has(shapeKey(state.shape))) await sandbox.stop();
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

/** The pool's key for a shape: everything a container is created from. */
function shapeKey(shape: SandboxShape): string {
  return JSON.stringify([shape.image, shape.workdir, shape.env, shape.limits, shape.agentUser ?? 'nobody']);
}
