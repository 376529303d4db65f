import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scrubSecrets } from '../llm/scrubSecrets.js';
import { rolloutExclusion, unsandboxedByConfig, type DatasetFilters, type SelectionContext } from '../datasets/selection.js';
import type { RunManifest } from '../core/ports/runStore.js';
import { readCuration } from '../store/curation.js';
import { readEnvironment } from '../store/runReader.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { dashboardView } from '../viewdata/dashboardView.js';
import type { LiveRun } from '../viewdata/liveRun.js';
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
  const files = new BundleFiles(out, secretsOfEnvironment());
  const report: BundleReport = { out, runs: [], files: 0 };
  const choices = [];
  const datasets: RunDataset[] = [];
  for (const { dir, manifest } of runs.listed()) {
    const run = writeRunData(files, runs, dir, manifest, filters);
    datasets.push(run.dataset);
    choices.push({ ...runChoice(dir, manifest, run.key), rollouts: run.rollouts });
    report.runs.push({ key: run.key, name: manifest.name, rollouts: run.rollouts, excluded: run.excluded });
  }
  files.json('data/runs.json', choices);
  const dataset: StaticDataset = { runs: datasets, note: `Only what this bundle holds: its export selection (--filter ${filters.filter}) leaves out rejected items, hint plays, unsandboxed rollouts and infrastructure errors.` };
  files.json('data/dataset.json', dataset);
  writePagesAndAssets(files, loadAssets(o.assetsDir ?? webviewAssetsDir()));
  report.files = files.count;
  return report;
}

/** Values of the environment's keys, tokens, secrets and passwords: the scrubber takes them out of every JSON text. */
function secretsOfEnvironment(): string[] {
  return Object.entries(process.env).filter(([k, v]) => /KEY|TOKEN|SECRET|PASSWORD/i.test(k) && v && v.length >= 8).map(([, v]) => v as string);
}

/**
 * The bundle's files, counted. Every file is created new ("wx", as the dataset exporter does): a link or file that
 * appeared in OUT after the emptiness check fails the bundle instead of being written through, and no name is
 * written twice.
 */
class BundleFiles {
  count = 0;

  constructor(readonly out: string, private readonly secrets: string[]) {}

  json(rel: string, value: unknown): void {
    const path = join(this.out, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, scrubSecrets(JSON.stringify(value), this.secrets), { flag: 'wx' });
    this.count++;
  }

  raw(rel: string, body: string | Uint8Array): void {
    writeFileSync(join(this.out, rel), body, { flag: 'wx' });
    this.count++;
  }
}

/** One run's data files; what the run listing and the report say of it; its curated items the bundle holds. */
function writeRunData(files: BundleFiles, runs: ServedRuns, dir: string, manifest: RunManifest, filters: DatasetFilters): { key: string; rollouts: number; excluded: Record<string, number>; dataset: RunDataset } {
  const key = runs.refOf(dir);
  const live = runs.get(key); // audited: a run with a link in it throws here
  const envs = readRunEnvironments(dir, live);
  const curation = readCuration(dir);
  const ctx: SelectionContext = { environments: envs, curation: curation.states, unsandboxed: unsandboxedByConfig(manifest) };
  const { rowsByGen, excluded } = writeRollouts(files, runs, key, live, filters, ctx);
  writeRunIndexes(files, runs, key, dir, manifest.name, live, rowsByGen);
  const inBundle = exportExclusions(live.run, curation, (id) => envs.get(id), filters);
  const curated = runDataset(live.run, key);
  // A curated item is in the bundle only if the bundle's selection takes its target (a rollout the bundle holds).
  const dataset = { ...curated, items: curated.items.filter((i) => safeKey.test(i.target.id) && inBundle(i.target) === undefined) };
  return { key, rollouts: [...rowsByGen.values()].flat().length, excluded, dataset };
}

function readRunEnvironments(dir: string, live: LiveRun): Map<string, EnvironmentSpec> {
  const envs = new Map<string, EnvironmentSpec>();
  for (const s of live.run.specs.values()) {
    if (s.kind !== 'environment') continue;
    try {
      envs.set(s.id, readEnvironment(dir, s.id));
    } catch {
      // an environment without its file: its rollouts lose the family filter, nothing else
    }
  }
  return envs;
}

/** One file per rollout the selection takes, with its table row kept by generation; the rest counted by why. */
function writeRollouts(files: BundleFiles, runs: ServedRuns, key: string, live: LiveRun, filters: DatasetFilters, ctx: SelectionContext): { rowsByGen: Map<number, RolloutRow[]>; excluded: Record<string, number> } {
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
    files.json(`data/${key}/rollouts/g${s.generation}/${s.id}.json`, rolloutView(runs, { runDir: key, generation: s.generation, rolloutId: s.id }));
  }
  return { rowsByGen, excluded };
}

/** A run's row file per generation, its table index, dashboard and eval results. */
function writeRunIndexes(files: BundleFiles, runs: ServedRuns, key: string, dir: string, runName: string, live: LiveRun, rowsByGen: Map<number, RolloutRow[]>): void {
  const gens = live.run.generations.map((g) => g.index);
  for (const g of gens) files.json(`data/${key}/rows/g${g}.json`, rowsByGen.get(g) ?? []);
  const table: StaticTableIndex = { runDir: key, runName, generations: gens.map((g) => ({ index: g, rows: rowsByGen.get(g)?.length ?? 0 })) };
  files.json(`data/${key}/table.json`, table);
  files.json(`data/${key}/dashboard.json`, dashboardView(live, undefined, (d) => runs.refOf(d)));
  files.json(`data/${key}/eval.json`, evalView(dir, key));
}

/** The same pages as the server, in static mode, and the webview bundles without their source maps. */
function writePagesAndAssets(files: BundleFiles, assets: ReturnType<typeof loadAssets>): void {
  for (const [page, p] of Object.entries(browserPages)) {
    files.raw(page, browserPageHtml(page, 'static', [], undefined, scriptChunks(assets, p.script)));
  }
  mkdirSync(join(files.out, 'assets'), { recursive: true });
  for (const [name, asset] of assets) {
    if (name.endsWith('.map')) continue;
    files.raw(join('assets', name), asset.body);
  }
}
