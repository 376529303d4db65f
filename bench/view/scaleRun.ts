// Runs scaled up from a real demo run, for the view benchmark: a thousand copies of the run (files hard-linked,
// manifests rewritten so every copy is its own run), and one run of about 10,000 rollouts made by replaying the demo's
// generations with fresh rollout and pair ids. Hard links are regular files, so the server's link audit accepts them.
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent, RunManifest } from '../../src/core/ports/runStore.js';
import { readEventLog } from '../../src/store/eventLog.js';

const root = join(__dirname, '../..');

/** A real demo run (built-in roles, bwrap sandboxes), as `npm run demo` makes it, with fewer generations. */
export function realDemoRun(outDir: string, generations = 2): string {
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'run', join(root, 'environments/demo.run.yaml'), '--out', outDir, '--generations', String(generations), '--backend', 'bwrap'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the demo run failed: ${r.stderr.slice(-2000)}`);
  const name = readdirSync(outDir).find((n) => n.startsWith('demo-'));
  if (!name) throw new Error('the demo run wrote no run directory');
  return join(outDir, name);
}

function linkTree(from: string, to: string, skip: (rel: string) => boolean, rel = ''): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const r = rel ? `${rel}/${name}` : name;
    if (skip(r)) continue;
    const src = join(from, name);
    if (statSync(src).isDirectory()) linkTree(src, join(to, name), skip, r);
    else linkSync(src, join(to, name));
  }
}

/** `n` copies of a run directory under `outDir`, each with its own name, run id and start time. */
export function cloneRuns(runDir: string, outDir: string, n: number): void {
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
  const t0 = Date.parse(manifest.startedAt);
  for (let i = 0; i < n; i++) {
    const dir = join(outDir, `demo${i}-run`);
    linkTree(runDir, dir, (rel) => rel === 'manifest.json' || rel === 'lock');
    const m = { ...manifest, name: `demo${i}`, runId: `${manifest.runId.slice(0, 4)}${String(i).padStart(4, '0')}`, startedAt: new Date(t0 - i * 60_000).toISOString() };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
  }
}

/** A run of about `target` rollouts: the demo's generations replayed `generations` times, each rollout `copies` times. */
export function scaleRollouts(runDir: string, outDir: string, target = 10_000, generations = 20): { dir: string; rollouts: number } {
  const dir = join(outDir, 'demo-10k');
  linkTree(runDir, dir, (rel) => rel === 'manifest.json' || rel === 'events.jsonl' || rel === 'lock' || rel.startsWith('rollouts') || rel.startsWith('generations'));
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, name: 'demo-10k', runId: `${manifest.runId.slice(0, 4)}10k0` }));
  const { events } = readEventLog(join(runDir, 'events.jsonl'));
  const sourceGens = [...new Set(events.flatMap((e) => (e.type === 'generation.finished' ? [e.generation] : [])))];
  const perGen = events.filter((e) => e.type === 'rollout.finished').length / sourceGens.length;
  const copies = Math.max(1, Math.ceil(target / (generations * perGen)));
  const out: RunEvent[] = events.filter((e) => e.type === 'run.started' || (e.type === 'spec.added' && sourceGens.includes(e.generation)));
  let rollouts = 0;
  for (let g = 0; g < generations; g++) {
    const s = sourceGens[g % sourceGens.length] as number;
    for (const e of events) {
      if (e.type === 'generation.started' && e.generation === s) {
        out.push({ ...e, generation: g, pairs: Array.from({ length: copies }, (_, c) => e.pairs.map((p) => ({ ...p, pairId: `${p.pairId}c${c}` }))).flat() });
      } else if (e.type === 'rollout.finished' && e.summary.generation === s) {
        for (let c = 0; c < copies; c++) {
          const id = `${e.summary.id}-g${g}c${c}`;
          out.push({ ...e, summary: { ...e.summary, id, generation: g, pairId: `${e.summary.pairId}c${c}` } });
          const src = join(runDir, 'rollouts', `g${String(s).padStart(4, '0')}`, `${e.summary.id}.json`);
          const folder = join(dir, 'rollouts', `g${String(g).padStart(4, '0')}`);
          mkdirSync(folder, { recursive: true });
          linkSync(src, join(folder, `${id}.json`));
          rollouts++;
        }
      }
    }
    const metrics = JSON.parse(readFileSync(join(runDir, 'generations', `g${String(s).padStart(4, '0')}.json`), 'utf8')) as Record<string, unknown>;
    mkdirSync(join(dir, 'generations'), { recursive: true });
    writeFileSync(join(dir, 'generations', `g${String(g).padStart(4, '0')}.json`), JSON.stringify({ ...metrics, index: g, rollouts: perGen * copies }));
    out.push({ type: 'generation.finished', generation: g } as RunEvent);
  }
  out.push({ type: 'run.finished', status: 'completed' } as RunEvent);
  writeFileSync(join(dir, 'events.jsonl'), out.map((e, i) => JSON.stringify({ ...e, seq: i + 1, at: new Date().toISOString() })).join('\n') + '\n');
  return { dir, rollouts };
}
