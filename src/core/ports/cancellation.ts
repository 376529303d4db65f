/**
 * The core's cancellation token is the platform AbortSignal: VS Code's CancellationToken and the CLI's Ctrl-C are
 * both adapted to it at the edge, so the core needs neither.
 */
export type Cancellation = AbortSignal;

/** Throws the signal's reason when it has been aborted; call between steps of long work. */
export function throwIfCancelled(signal: Cancellation | undefined): void {
  if (signal?.aborted) throw cancellationOf(signal);
}

/** What an aborted signal rejects with: its reason when that is an error, else a CancelledError. */
export function cancellationOf(signal: Cancellation): Error {
  return signal.reason instanceof Error ? signal.reason : new CancelledError();
}

export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}
