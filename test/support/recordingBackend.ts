// A recording wrapper around a real sandbox backend: every call still goes to the real backend and its real
// sandboxes; the wrapper only counts each sandbox's stop() calls through the port and lets a test act at a chosen
// call (cancel the run as the verifier's sandbox is started, say). Nothing is faked: a fault a test needs happens
// in the real backend.
import type { Cancellation } from '../../src/core/ports/cancellation.js';
import type { Sandbox, SandboxBackend, SandboxRequest } from '../../src/core/ports/sandbox.js';

/** A port call as the wrapper saw it: which sandbox (by start order, 1-based; 0 for the backend) and which method. */
export interface RecordedCall {
  sandbox: number;
  method: string;
  args: unknown[];
}

export interface RecordingBackend extends SandboxBackend {
  /** Every call through the port, in order (a start is recorded before the real backend is asked). */
  readonly calls: RecordedCall[];
  /** How many times each started sandbox's stop() was called, in start order. */
  stopsPerSandbox(): number[];
  /** Called before each call reaches the real backend or sandbox (e.g. to abort the run's controller there). */
  onCall?: (call: RecordedCall) => void;
}

export function recordingBackend(real: SandboxBackend): RecordingBackend {
  const calls: RecordedCall[] = [];
  const stops: number[] = [];
  const recorder: RecordingBackend = {
    name: real.name,
    calls,
    stopsPerSandbox: () => [...stops],
    async start(request: SandboxRequest, options?: { signal?: Cancellation }): Promise<Sandbox> {
      note(0, 'start', [request]);
      const box = await real.start(request, options);
      stops.push(0);
      return recordingSandbox(box, stops.length);
    },
    dispose: () => real.dispose(),
  };

  function note(sandbox: number, method: string, args: unknown[]): void {
    const call = { sandbox, method, args };
    calls.push(call);
    recorder.onCall?.(call);
  }

  /** The real sandbox behind a proxy: every property and method is the real one, stop() is counted first. */
  function recordingSandbox(box: Sandbox, n: number): Sandbox {
    return new Proxy(box, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (prop === 'stop') stops[n - 1] = (stops[n - 1] ?? 0) + 1;
          note(n, String(prop), args);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  return recorder;
}
