import { statSync } from 'node:fs';
import { runLayout } from '../store/layout.js';
import { ViewData } from '../viewdata/viewRequests.js';
import type { ServedRuns } from './servedRuns.js';

/**
 * Runs the dashboard's code once before the server takes requests, on the run with the smallest event log among the
 * newest `window`, through a ViewData of its own that is then dropped. V8 compiles the bundle's functions on first
 * call and zod compiles each schema on its first parse: without this, the first dashboard a visitor opens paid for
 * that (a 10,400-rollout run's dashboard/get: 238 ms of CPU first, 155 ms after another run's), while the server and
 * the browser share two cores. What it read is dropped with its ViewData (only the run's audit is kept, as after any
 * request): every run's data is still read when a page asks for it.
 */
export function warmDashboardCode(runs: ServedRuns, window = 50): void {
  const sized = runs.listed().slice(0, window).flatMap(({ dir }) => {
    try {
      return [{ dir, bytes: statSync(runLayout.events(dir)).size }];
    } catch {
      return [];
    }
  });
  const smallest = sized.sort((a, b) => a.bytes - b.bytes)[0];
  if (!smallest) return;
  try {
    new ViewData(runs, { transcriptCache: null }).handlers['dashboard/get']({ runDir: runs.refOf(smallest.dir) });
  } catch {
    // a run that cannot be read says so when a page asks for it
  }
}
