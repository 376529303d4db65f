// Dataset export benchmark: 10,000 rollouts (100 lineages x 5 versions x 20 rollouts) in a synthetic run directory
// of the documented layout, exported as chat-jsonl and atif, and 500 environments as Harbor folders. Target: the
// 10,000-rollout export under 10 s. Baseline, measured in the same run: a plain copy of the same rollout files
// into one JSONL (read, parse, stringify, write) — the I/O floor any export pays. Hint plays are asked for, so
// all 10,000 rollouts are exported (by default a third of them, the hint plays, would be left out).
//   npm run bench:datasets        prints a table, then one JSON line
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportRun } from '../../src/datasets/exportRun.js';
import type { ExportFormat } from '../../src/datasets/datasetCard.js';
import { writeSyntheticRun } from './syntheticRun.js';

const targetMs = 10_000;

/** Wall time and CPU time (user + system): on a shared machine the CPU figure is the steadier one. */
async function time<T>(work: () => T | Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = await work();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, value };
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    n += st.isDirectory() ? folderBytes(p) : st.size;
  }
  return n;
}

/** The floor: every rollout file read, parsed, serialised again and written into one JSONL. */
function plainCopy(runDir: string, out: string): number {
  const lines: string[] = [];
  const root = join(runDir, 'rollouts');
  for (const g of readdirSync(root).sort()) {
    for (const f of readdirSync(join(root, g)).sort()) lines.push(JSON.stringify(JSON.parse(readFileSync(join(root, g, f), 'utf8'))));
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'copy.jsonl'), `${lines.join('\n')}\n`);
  return lines.length;
}

async function main(): Promise<void> {
const tmp = mkdtempSync(join(tmpdir(), 'coevolve-bench-datasets-'));
try {
  const gen = await (async () => {
    const t0 = performance.now();
    const run = await writeSyntheticRun(join(tmp, 'runs'), { lineages: 100, childrenPerLineage: 4, rolloutsPerEnv: 20, writer: 'fast', name: 'bench' });
    return { run, ms: performance.now() - t0 };
  })();
  const { run } = gen;
  console.log(`synthetic run: ${run.rollouts.length} rollouts, ${run.environments.length} environments, ${(folderBytes(run.dir) / 1e6).toFixed(1)} MB (written in ${(gen.ms / 1000).toFixed(1)} s)`);

  const baseline = await time(() => plainCopy(run.dir, join(tmp, 'baseline')));
  const rows: { name: string; items: number; ms: number; cpuMs: number; mb: number }[] = [{ name: 'baseline: plain JSON copy', items: baseline.value, ms: baseline.ms, cpuMs: baseline.cpuMs, mb: folderBytes(join(tmp, 'baseline')) / 1e6 }];
  const results: Record<string, number> = { baselineMs: Math.round(baseline.ms), baselineCpuMs: Math.round(baseline.cpuMs) };
  for (const format of ['chat-jsonl', 'atif', 'harbor'] as ExportFormat[]) {
    const out = join(tmp, `out-${format}`);
    const r = await time(() => exportRun(run.dir, { format, outDir: out, filter: 'all', includeHintPlays: true, weights: format === 'chat-jsonl' }));
    rows.push({ name: `export ${format}`, items: r.value.exported, ms: r.ms, cpuMs: r.cpuMs, mb: folderBytes(out) / 1e6 });
    results[`${format}Ms`] = Math.round(r.ms);
    results[`${format}CpuMs`] = Math.round(r.cpuMs);
    rmSync(out, { recursive: true, force: true });
  }

  console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);
  console.log('\n| what | items | wall | cpu | items/s (wall) | wall vs baseline | output |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.items} | ${(r.ms / 1000).toFixed(2)} s | ${(r.cpuMs / 1000).toFixed(2)} s | ${Math.round(r.items / (r.ms / 1000))} | ${(r.ms / baseline.ms).toFixed(2)}x | ${r.mb.toFixed(1)} MB |`);
  }
  const chatMs = results['chat-jsonlMs']!;
  const atifMs = results.atifMs!;
  const worst = Math.max(chatMs, atifMs);
  console.log(`\n10,000-rollout export: chat-jsonl ${(chatMs / 1000).toFixed(2)} s, atif ${(atifMs / 1000).toFixed(2)} s; target < ${targetMs / 1000} s: ${worst < targetMs ? 'met' : 'MISSED'}`);
  console.log(JSON.stringify({ bench: 'datasets', rollouts: run.rollouts.length, environments: run.environments.length, ...results, targetMs, met: worst < targetMs }));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
}

void main();
