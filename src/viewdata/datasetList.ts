// The dataset of the runs a host shows: every curated rollout and environment (curation.jsonl, folded by the store),
// each with the facts the Dataset view filters on and why the shared export selection (src/datasets/selection.ts)
// would leave it out. Only runs that have a curation file are opened, so a list of a thousand runs costs a thousand
// stat calls when nothing is curated; a run's items are rebuilt only when its curation file or its index changed.
import { lstatSync } from 'node:fs';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { countsTowardEnvironment, environmentExclusion, rolloutExclusion, unsandboxedByConfig, type DatasetFilters as ExportFilters, type SelectionContext } from '../datasets/selection.js';
import { readCuration, type CurationRead, type CurationTarget } from '../store/curation.js';
import { runLayout } from '../store/layout.js';
import { readEnvironment, type RunIndex } from '../store/runReader.js';
import type { DatasetList, RequestParamsOf } from '../webview/protocol.js';
import { datasetItems, datasetList, type RunDataset } from './datasetItems.js';
import type { RunResolver } from './runRegistry.js';

/** What `coevolve export` takes by default; an item's `exportExclusion` says why this would leave it out. */
const exportDefaults: ExportFilters = { filter: 'accepted' };

interface Cached {
  stamp: string;
  index: RunIndex;
  entry: RunDataset;
}

/** The size and modification time of a run's curation.jsonl, or undefined when it has none (or not a file). */
function curationStamp(dir: string): string | undefined {
  try {
    const st = lstatSync(runLayout.curation(dir));
    return st.isFile() && st.size > 0 ? `${st.size}:${st.mtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

/** Environment specs of a run, read on first use (an unreadable file is remembered as missing). */
function environmentReader(dir: string): (id: string) => EnvironmentSpec | undefined {
  const specs = new Map<string, EnvironmentSpec | null>();
  return (id) => {
    if (!specs.has(id)) {
      try {
        specs.set(id, readEnvironment(dir, id));
      } catch {
        specs.set(id, null);
      }
    }
    return specs.get(id) ?? undefined;
  };
}

/**
 * The export selection's verdict on each curated target of a run: rollouts by `rolloutExclusion`, environments by
 * `environmentExclusion` over their play statistics (the same default exclusions as the export's).
 */
export function exportExclusions(run: RunIndex, curation: CurationRead, env: (id: string) => EnvironmentSpec | undefined, filters: ExportFilters = exportDefaults): (t: CurationTarget) => string | undefined {
  const ids = new Set<string>();
  for (const s of curation.states.values()) {
    if (s.target.kind === 'environment') ids.add(s.target.id);
    else {
      const r = run.rollouts.get(s.target.id);
      if (r) ids.add(r.envId);
    }
  }
  const environments = new Map<string, EnvironmentSpec>();
  for (const id of ids) {
    const e = env(id);
    if (e) environments.set(id, e);
  }
  const ctx: SelectionContext = { environments, curation: curation.states, unsandboxed: unsandboxedByConfig(run.manifest) };
  return (t) => {
    if (t.kind === 'rollout') {
      const s = run.rollouts.get(t.id);
      return s ? rolloutExclusion(s, filters, ctx) : 'not in the run (no such rollout)';
    }
    const spec = environments.get(t.id);
    if (!spec) return 'environment file missing';
    let rollouts = 0;
    let successes = 0;
    let rewardSum = 0;
    for (const s of run.rollouts.values()) {
      if (s.envId !== t.id || !countsTowardEnvironment(s, filters, ctx)) continue;
      rollouts++;
      successes += s.success ? 1 : 0;
      rewardSum += s.reward;
    }
    return environmentExclusion(spec, { rollouts, successes, rewardSum }, filters, ctx);
  };
}

/** The curated items of one run as a host names it (`ref`), from its index and its curation file. */
export function runDataset(run: RunIndex, ref: string, filters: ExportFilters = exportDefaults): RunDataset {
  const curation = readCuration(run.dir);
  const env = environmentReader(run.dir);
  const exclusion = exportExclusions(run, curation, env, filters);
  const items = datasetItems({
    run, curation, ref, exclusion,
    environment: (id) => {
      const e = env(id);
      return e ? { family: e.family, skills: e.skills } : undefined;
    },
  });
  return { runDir: ref, runName: run.manifest.name, items };
}

/** The dataset request of a host: curated items of every listed run (or one), filtered as the Dataset view filters. */
export class DatasetReader {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly runs: RunResolver) {}

  /** Every run with curated items (a run that cannot be read is listed with its problem). */
  runDatasets(only?: string): RunDataset[] {
    const out: RunDataset[] = [];
    for (const { dir, manifest } of this.runs.listed()) {
      const ref = this.runs.refOf(dir);
      if (only !== undefined && ref !== only) continue;
      const stamp = curationStamp(dir);
      if (!stamp) {
        this.cache.delete(dir);
        continue;
      }
      try {
        const live = this.runs.get(ref);
        live.refresh();
        const hit = this.cache.get(dir);
        if (hit && hit.stamp === stamp && hit.index === live.run) {
          out.push(hit.entry);
          continue;
        }
        const entry = runDataset(live.run, ref);
        this.cache.set(dir, { stamp, index: live.run, entry });
        out.push(entry);
      } catch (err) {
        out.push({ runDir: ref, runName: manifest.name, items: [], problem: err instanceof Error ? err.message : String(err) });
      }
    }
    return out;
  }

  list(p: RequestParamsOf<'dataset/list'>): DatasetList {
    return datasetList(this.runDatasets(p.runDir), p);
  }
}
