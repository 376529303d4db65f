// Counts what a piece of code asks of the file system, whichever module makes the call: node:fs's own function
// (module.exports, which every importer calls through) is wrapped and the ESM named bindings are synced, so the real
// call still answers and the code under test needs no seam. Used to measure "reads nothing it need not" claims, on
// the old code too.
import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const nodeFs = ((fs as unknown as { default?: typeof fs }).default ?? fs) as unknown as Record<string, unknown>;

/** The paths (first argument) of every `name` call `fn` makes, e.g. fsCalls('existsSync', () => registry.list()). */
export function fsCalls(name: 'existsSync' | 'openSync' | 'statSync' | 'lstatSync' | 'readdirSync', fn: () => void): string[] {
  const real = nodeFs[name] as (...args: unknown[]) => unknown;
  const calls: string[] = [];
  nodeFs[name] = (path: unknown, ...rest: unknown[]) => {
    calls.push(String(path));
    return real(path, ...rest);
  };
  syncBuiltinESMExports();
  try {
    fn();
  } finally {
    nodeFs[name] = real;
    syncBuiltinESMExports();
  }
  return calls;
}
