// What the Dataset view shows (the editor's tree, `coevolve view`'s dataset page and a bundle's): every curated target
// (rollout or environment) of a run, with the facts its filters read — verdict, reward, tags and labels, family,
// generation, whether its pair sits in the run's success band, and why an export would leave it out.
// Pure: it reads an indexed run and its folded curation (no file access), so the browser answers a bundle's
// dataset query with this same code.
import type { RolloutSummary } from '../core/rollout/trajectory.js';
import type { CurationRead, CurationTarget, CurationVerdict } from '../store/curation.js';
import type { RunIndex } from '../store/runReader.js';
import type { DatasetList, DatasetRunSummary, RequestParamsOf } from '../webview/protocol.js';

export interface DatasetItem {
  runDir: string;
  runName: string;
  target: CurationTarget;
  verdict?: CurationVerdict;
  verdictNote?: string;
  labels: string[];
  comments: string[];
  /** Rollout tags (judge rubric) and, for environments, skills. */
  tags: string[];
  generation?: number;
  /** A rollout's reward; an environment's mean reward over its plays. */
  reward?: number;
  family?: string;
  envId?: string;
  pairId?: string;
  /** The success rate of the rollout's pair in its generation (an environment's over all its plays), hint plays left out. */
  successRate?: number;
  inBand?: boolean;
  updatedAt: string;
  /** Why `coevolve export` (its defaults: accepted only) leaves the item out; absent when it would be exported. */
  exportExclusion?: string;
}

export interface DatasetFilters {
  verdict: 'any' | 'accepted' | 'rejected';
  inBand: boolean;
  minReward?: number;
  /** Any of these among the item's tags or curation labels. */
  tags: string[];
  families: string[];
  generations: number[];
}

export const noFilters: DatasetFilters = { verdict: 'any', inBand: false, tags: [], families: [], generations: [] };

export interface RunFacts {
  run: RunIndex;
  curation: CurationRead;
  /** Environment facts from the run's spec files (family, skills); undefined when the file is missing. */
  environment(id: string): { family: string; skills: string[] } | undefined;
  /** How the host names the run in items (the editor: its directory; `coevolve view`: its key). */
  ref?: string;
  /** Why the export selection (src/datasets/selection.ts) leaves a target out; given by hosts that show it. */
  exclusion?: (target: CurationTarget) => string | undefined;
}

/** The curated items of one run, newest decision first. */
export function datasetItems(facts: RunFacts): DatasetItem[] {
  const { run, curation } = facts;
  const band = run.manifest.config?.band ?? { low: 0.4, high: 0.6 };
  const inBand = (p: number | undefined): boolean | undefined => (p === undefined ? undefined : p >= band.low && p <= band.high);
  const all = [...run.rollouts.values()];
  const pairRate = successRates(all, (r) => `${r.generation}|${r.pairId}`);
  const envRate = successRates(all, (r) => r.envId);
  const items: DatasetItem[] = [];
  for (const state of curation.states.values()) {
    const excluded = facts.exclusion?.(state.target);
    const base = {
      runDir: facts.ref ?? run.dir,
      runName: run.manifest.name,
      target: state.target,
      ...(state.verdict ? { verdict: state.verdict } : {}),
      ...(state.verdictNote ? { verdictNote: state.verdictNote } : {}),
      labels: state.labels,
      comments: state.comments.map((c) => c.text),
      updatedAt: state.updatedAt,
      ...(excluded ? { exportExclusion: excluded } : {}),
    };
    if (state.target.kind === 'rollout') {
      const r = run.rollouts.get(state.target.id);
      const env = r ? facts.environment(r.envId) : undefined;
      const rate = r ? pairRate.get(`${r.generation}|${r.pairId}`) : undefined;
      items.push({
        ...base,
        tags: r?.tags ?? [],
        ...(r ? { generation: r.generation, reward: r.reward, envId: r.envId, pairId: r.pairId } : {}),
        ...(env ? { family: env.family } : {}),
        ...(rate !== undefined ? { successRate: rate, inBand: inBand(rate)! } : {}),
      });
    } else {
      const id = state.target.id;
      const env = facts.environment(id);
      const plays = all.filter((r) => r.envId === id);
      const rate = envRate.get(id);
      const spec = run.specs.get(`environment:${id}`) ?? [...run.specs.values()].find((s) => s.kind === 'environment' && s.id === id);
      items.push({
        ...base,
        tags: env?.skills ?? [],
        envId: id,
        ...(spec ? { generation: spec.generation } : plays[0] ? { generation: plays[0].generation } : {}),
        ...(plays.length > 0 ? { reward: plays.reduce((s, r) => s + r.reward, 0) / plays.length } : {}),
        ...(env ? { family: env.family } : {}),
        ...(rate !== undefined ? { successRate: rate, inBand: inBand(rate)! } : {}),
      });
    }
  }
  return items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function successRates(rollouts: RolloutSummary[], key: (r: RolloutSummary) => string): Map<string, number> {
  const sums = new Map<string, { n: number; ok: number }>();
  for (const r of rollouts) {
    if (r.hint || r.status === 'error') continue;
    const k = key(r);
    const s = sums.get(k) ?? { n: 0, ok: 0 };
    s.n++;
    if (r.success) s.ok++;
    sums.set(k, s);
  }
  return new Map([...sums].map(([k, s]) => [k, s.ok / s.n]));
}

export function matchesFilters(item: DatasetItem, f: DatasetFilters): boolean {
  if (f.verdict !== 'any' && item.verdict !== f.verdict) return false;
  if (f.inBand && item.inBand !== true) return false;
  if (f.minReward !== undefined && !(item.reward !== undefined && item.reward >= f.minReward)) return false;
  if (f.tags.length > 0 && !f.tags.some((t) => item.tags.includes(t) || item.labels.includes(t))) return false;
  if (f.families.length > 0 && !(item.family !== undefined && f.families.includes(item.family))) return false;
  if (f.generations.length > 0 && !(item.generation !== undefined && f.generations.includes(item.generation))) return false;
  return true;
}

/** "accepted · in band · reward ≥ 0.5 · tag clarification" — empty when nothing filters. */
export function describeFilters(f: DatasetFilters): string {
  const parts: string[] = [];
  if (f.verdict !== 'any') parts.push(f.verdict);
  if (f.inBand) parts.push('in band');
  if (f.minReward !== undefined) parts.push(`reward ≥ ${f.minReward}`);
  if (f.tags.length) parts.push(`tag ${f.tags.join('|')}`);
  if (f.families.length) parts.push(`family ${f.families.join('|')}`);
  if (f.generations.length) parts.push(`gen ${f.generations.join('|')}`);
  return parts.join(' · ');
}

/** The values present across items, for the filter pickers. */
export function filterChoices(items: readonly DatasetItem[]): { tags: string[]; families: string[]; generations: number[] } {
  const tags = new Set<string>();
  const families = new Set<string>();
  const generations = new Set<number>();
  for (const i of items) {
    i.tags.forEach((t) => tags.add(t));
    i.labels.forEach((t) => tags.add(t));
    if (i.family) families.add(i.family);
    if (i.generation !== undefined) generations.add(i.generation);
  }
  return { tags: [...tags].sort(), families: [...families].sort(), generations: [...generations].sort((a, b) => a - b) };
}

/**
 * The `coevolve export` arguments that carry the view's filters over (the CLI has no in-band filter: noted). The
 * selection is the CLI's default (accepted by curation only) unless `everythingNotRejected` is asked for, so the
 * editor and the CLI export the same items from the same run; a view filter of "any verdict" does not widen it.
 */
export function exportArguments(f: DatasetFilters, everythingNotRejected = false): { args: string[]; unsupported: string[] } {
  const args = ['--filter', everythingNotRejected && f.verdict !== 'accepted' ? 'all' : 'accepted'];
  if (f.minReward !== undefined) args.push('--min-reward', String(f.minReward));
  for (const t of f.tags) args.push('--tag', t);
  for (const fam of f.families) args.push('--family', fam);
  for (const g of f.generations) args.push('--generation', String(g));
  const unsupported: string[] = [];
  if (f.inBand) unsupported.push('in band');
  if (f.verdict === 'rejected') unsupported.push('rejected only (exports never include rejected items)');
  return { args, unsupported };
}

/** What a dataset query returns: the matching items (newest decision first, up to a limit) and the filter choices. */
export interface DatasetPage {
  /** Curated items before the filters, and how many pass them. */
  total: number;
  matching: number;
  items: DatasetItem[];
  choices: { tags: string[]; families: string[]; generations: number[] };
  /** The `coevolve export` arguments of these filters, and which filters the CLI has no flag for. */
  exportArgs: { args: string[]; unsupported: string[] };
}

/** Filters, orders and cuts a list of curated items (of one run or many). */
export function queryDataset(items: readonly DatasetItem[], f: DatasetFilters, limit = 5000): DatasetPage {
  const matching = items.filter((i) => matchesFilters(i, f)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || (a.target.id < b.target.id ? -1 : 1));
  return { total: items.length, matching: matching.length, items: matching.slice(0, limit), choices: filterChoices(items), exportArgs: exportArguments(f) };
}

/** Filters as a message gives them (every field optional), with the defaults of no filter. */
export function datasetFilters(given: Partial<DatasetFilters> | undefined): DatasetFilters {
  return { ...noFilters, ...Object.fromEntries(Object.entries(given ?? {}).filter(([, v]) => v !== undefined)) };
}

/** The curated items of one run, named as its host names it. */
export interface RunDataset {
  runDir: string;
  runName: string;
  items: DatasetItem[];
  problem?: string;
}

/** The answer to a dataset query over runs' items (the server's and, from its files, a bundle's). */
export function datasetList(runs: readonly RunDataset[], p: Omit<RequestParamsOf<'dataset/list'>, 'runDir'>): DatasetList {
  const f = datasetFilters(p.filters);
  const page = queryDataset(runs.flatMap((r) => r.items), f, p.limit);
  const summaries: DatasetRunSummary[] = runs.map((r) => ({
    runDir: r.runDir, runName: r.runName, curated: r.items.length,
    matching: r.items.filter((i) => matchesFilters(i, f)).length,
    accepted: r.items.filter((i) => i.verdict === 'accepted').length,
    ...(r.problem ? { problem: r.problem } : {}),
  }));
  return { ...page, runs: summaries };
}
