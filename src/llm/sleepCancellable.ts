import { throwIfCancelled } from '../core/ports/cancellation.js';
import type { Cancellation } from '../core/ports/cancellation.js';

/** The wait between retries: resolves after `ms`, or rejects at once with the cancellation's reason. */
export function sleepCancellable(ms: number, signal?: Cancellation): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      try {
        throwIfCancelled(signal);
      } catch (err) {
        reject(err);
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
