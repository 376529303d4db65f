import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scrubSecrets } from '../llm/scrubSecrets.js';
import { rolloutExclusion, unsandboxedByConfig, type DatasetFilters } from '../datasets/selection.js';
import { readCuration } from '../store/curation.js';
import { readEnvironment } from '../store/runReader.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { dashboardView } from '../viewdata/dashboardView.js';
import type { RunDataset } from '../viewdata/datasetItems.js';
import { exportExclusions, runDataset } from '../viewdata/datasetList.js';
import { evalView } from '../viewdata/evalView.js';
import { rolloutRow } from '../viewdata/rolloutTable.js';
import { rolloutView } from '../viewdata/rolloutView.js';
import { runChoice } from '../viewdata/runListing.js';
import { safeKey } from '../webview/browserLinks.js';
import type { StaticDataset, StaticTableIndex } from '../webview/browserTransport.js';
import type { RolloutRow } from '../webview/protocol.js';
import { loadAssets, scriptChunks, webviewAssetsDir } from './assets.js';
import { browserPageHtml, browserPages } from './browserPages.js';
import { ServedRuns } from './servedRuns.js';

export interface BundleOptions {
  /** The export selection the bundle takes (src/datasets/selection.ts): 'all' = everything not rejected. */
  filters?: DatasetFilters;
  assetsDir?: string;
}

export interface BundleReport {
  out: string;
  runs: { key: string; name: string; rollouts: number; excluded: Record<string, number> }[];
  files: number;
}

/**
 * `coevolve view --bundle OUT`: a static site any static file server can serve. The same pages and webview bundles
 * as the server, answering from small JSON files (runs.json; per run dashboard.json, table.json, one row file per
 * generation, one file per rollout; dataset.json with the curated items it holds), so a large run loads only what a
 * page asks for. A rollout is in the bundle
 * only if the export selection takes it (no hint plays, no infrastructure errors, nothing rejected), and a run
 * directory holding a link is refused whole. Every JSON text passes the secret scrubber on its way out.
 */
export function writeBundle(out: string, sources: string[], o: BundleOptions = {}): BundleReport {
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty; give --bundle a new or empty folder`);
  const filters: DatasetFilters = o.filters ?? { filter: 'all' };
  const runs = new ServedRuns(sources);
  const secrets = Object.entries(process.env).filter(([k, v]) => /KEY|TOKEN|SECRET|PASSWORD/i.test(k) && v && v.length >= 8).map(([, v]) => v as string);
  let files = 0;
  // Every file is created new ("wx", as the dataset exporter does): a link or file that appeared in OUT after the
  // emptiness check above fails the bundle instead of being written through, and no name is written twice.
  const write = (rel: string, value: unknown): void => {
    const path = join(out, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, scrubSecrets(JSON.stringify(value), secrets), { flag: 'wx' });
    files++;
  };
  const report: BundleReport = { out, runs: [], files: 0 };
  const listed = runs.listed();
  const choices = [];
  const datasets: RunDataset[] = [];
  for (const { dir, manifest } of listed) {
    const key = runs.refOf(dir);
    const live = runs.get(key); // audited: a run with a link in it throws here
    const envs = new Map<string, EnvironmentSpec>();
    for (const s of live.run.specs.values()) {
      if (s.kind !== 'environment') continue;
      try {
        envs.set(s.id, readEnvironment(dir, s.id));
      } catch {
        // an environment without its file: its rollouts lose the family filter, nothing else
      }
    }
    const curation = readCuration(dir);
    const ctx = { environments: envs, curation: curation.states, unsandboxed: unsandboxedByConfig(manifest) };
    const excluded: Record<string, number> = {};
    const rowsByGen = new Map<number, RolloutRow[]>();
    for (const s of live.run.rollouts.values()) {
      // The shared export selection: infrastructure errors, hint plays and unsandboxed rollouts are out by default.
      const why = rolloutExclusion(s, filters, ctx);
      if (why || !safeKey.test(s.id)) {
        excluded[why ?? 'unsafe id'] = (excluded[why ?? 'unsafe id'] ?? 0) + 1;
        continue;
      }
      const row = rolloutRow(s, live.env(s.envId));
      rowsByGen.set(s.generation, [...(rowsByGen.get(s.generation) ?? []), row]);
      write(`data/${key}/rollouts/g${s.generation}/${s.id}.json`, rolloutView(runs, { runDir: key, generation: s.generation, rolloutId: s.id }));
    }
    const gens = live.run.generations.map((g) => g.index);
    for (const g of gens) write(`data/${key}/rows/g${g}.json`, rowsByGen.get(g) ?? []);
    const table: StaticTableIndex = { runDir: key, runName: manifest.name, generations: gens.map((g) => ({ index: g, rows: rowsByGen.get(g)?.length ?? 0 })) };
    write(`data/${key}/table.json`, table);
    write(`data/${key}/dashboard.json`, dashboardView(live, undefined, (d) => runs.refOf(d)));
    write(`data/${key}/eval.json`, evalView(dir, key));
    const inBundle = exportExclusions(live.run, curation, (id) => envs.get(id), filters);
    const curated = runDataset(live.run, key);
    // A curated item is in the bundle only if the bundle's selection takes its target (a rollout the bundle holds).
    datasets.push({ ...curated, items: curated.items.filter((i) => safeKey.test(i.target.id) && inBundle(i.target) === undefined) });
    const all = [...rowsByGen.values()].flat();
    choices.push({ ...runChoice(dir, manifest, key), rollouts: all.length });
    report.runs.push({ key, name: manifest.name, rollouts: all.length, excluded });
  }
  write('data/runs.json', choices);
  const dataset: StaticDataset = { runs: datasets, note: `Only what this bundle holds: its export selection (--filter ${filters.filter}) leaves out rejected items, hint plays, unsandboxed rollouts and infrastructure errors.` };
  write('data/dataset.json', dataset);
  const assets = loadAssets(o.assetsDir ?? webviewAssetsDir());
  for (const [page, p] of Object.entries(browserPages)) {
    writeFileSync(join(out, page), browserPageHtml(page, 'static', [], undefined, scriptChunks(assets, p.script)), { flag: 'wx' });
    files++;
  }
  mkdirSync(join(out, 'assets'), { recursive: true });
  for (const [name, asset] of assets) {
    if (name.endsWith('.map')) continue;
    writeFileSync(join(out, 'assets', name), asset.body, { flag: 'wx' });
    files++;
  }
  report.files = files;
  return report;
}
