// A real demo run (environments/demo.run.yaml through the built CLI, on bubblewrap), made once per test process and
// shared by the browser tests of the panels: what they render is what the engine wrote, not a fixture.
import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCliWatched } from './cli.js';

let cached: Promise<string> | undefined;

/** Why the demo cannot run here (no bubblewrap), or undefined. */
export function demoRunProblem(): string | undefined {
  const r = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : 'bubblewrap (bwrap) is not installed';
}

/**
 * The run directory of a finished demo run with `generations` generations (default 5, the demo's own: with its seeds
 * at level 1.5 the first new pairing that a later generation plays is admitted in generation 3), made once per test
 * process. It takes a few minutes, many under load, so it is held to its progress (runCliWatched), not to a
 * deadline: the caller's hook calls `this.timeout(0)` first.
 */
export function demoRun(generations = 5): Promise<string> {
  cached ??= makeDemoRun(generations);
  return cached;
}

async function makeDemoRun(generations: number): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'coevolve-demo-run-'));
  // COEVOLVE_TEST_DEMO_RUN=<a finished demo run directory> uses a copy of one made earlier, when working on the
  // browser tests on a machine too loaded to make a fresh one each time (CI leaves it unset).
  const given = process.env.COEVOLVE_TEST_DEMO_RUN;
  if (given) {
    if (!existsSync(join(given, 'manifest.json'))) throw new Error(`COEVOLVE_TEST_DEMO_RUN=${given} is not a run directory`);
    cpSync(given, join(out, basename(given)), { recursive: true });
    return join(out, basename(given));
  }
  const r = await runCliWatched(['run', resolve('environments/demo.run.yaml'), '--out', out, '--backend', 'bwrap', '--generations', String(generations)], { watchDir: out });
  if (r.code !== 0) throw new Error(`the demo run failed (exit ${r.code}):\n${r.stderr}\n${r.stdout}`);
  const dir = readdirSync(out).find((d) => existsSync(join(out, d, 'manifest.json')));
  if (!dir) throw new Error(`the demo wrote no run directory in ${out}`);
  return join(out, dir);
}
