/**
 * The run's warnings, each said once: the unsafe-backend warning repeats on every sandbox start (so a library user
 * cannot miss it), which in a run is one line per rollout and buries the progress. The first one is printed; the
 * rest are counted, and `summary()` says how many sandboxes ran that way.
 */
export function warnOncePerRun(write: (line: string) => void): { warn: (message: string) => void; summary: () => string | undefined } {
  const seen = new Set<string>();
  let unsandboxedStarts = 0;
  return {
    warn(message) {
      if (/^starting an unsandboxed "process" sandbox/.test(message)) {
        unsandboxedStarts++;
        return;
      }
      if (seen.has(message)) return;
      seen.add(message);
      write(`warning: ${message}`);
    },
    summary: () => (unsandboxedStarts > 0 ? `warning: ${unsandboxedStarts} sandbox${unsandboxedStarts === 1 ? '' : 'es'} of this run ran UNSANDBOXED (process backend)` : undefined),
  };
}
