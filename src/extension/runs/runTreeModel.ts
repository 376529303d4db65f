// The Runs tree as plain data: which nodes a run, generation or pair has, with labels, descriptions, icons, filters
// and sorting. No `vscode` import, so it is unit-tested and benchmarked without an editor. Everything shown comes
// from the run index (events.jsonl) and the stored generation metrics; the only arithmetic is counting.
import type { PairStatsFull } from '../../core/metrics/pairStats.js';
import type { PairPlan, RunManifest } from '../../core/ports/runStore.js';
import type { RolloutSummary } from '../../core/rollout/trajectory.js';
import type { GenerationIndex, RunIndex } from '../../store/runReader.js';
import type { EnvInfo, RunSource, UserInfo } from '../../viewdata/liveRun.js';
import type { RunFacts } from '../../viewdata/runListing.js';
import { designLevelLabel, difficultyScales, environmentName, generationLabel, measuredLabel, pairClassLabel, runLabel, successLabel, userName } from '../../webview/names.js';
import { fixed } from '../../webview/render/figures.js';

export type SortKey = 'default' | 'reward' | 'duration' | 'cost';

export interface TreeFilter {
  failedOnly?: boolean;
  /** Pairs whose every no-hint trial failed (tau2's "failed in every trial"). */
  failedEveryTrial?: boolean;
  inBand?: boolean;
  tag?: string;
  family?: string;
}

export interface TreeView {
  filter: TreeFilter;
  sort: SortKey;
}

export const defaultView: TreeView = { filter: {}, sort: 'default' };

export type { EnvInfo };
/** The tree reads a run the way every viewer does (src/viewdata). */
export type TreeContext = RunSource;

/** A codicon id plus an optional theme colour id. */
export interface NodeIcon {
  id: string;
  color?: string;
}

interface NodeBase {
  /** Stable across refreshes, so expansion and selection survive live updates. */
  key: string;
  runDir: string;
  label: string;
  description: string;
  tooltip: string;
  icon: NodeIcon;
  contextValue: string;
  collapsible: boolean;
}

export type RunTreeNode =
  | (NodeBase & { kind: 'run' })
  | (NodeBase & { kind: 'generation'; generation: number })
  | (NodeBase & { kind: 'pair'; generation: number; pairId: string; envId: string; userId: string })
  | (NodeBase & { kind: 'rollout'; generation: number; rolloutId: string; pairId: string; running: boolean; firstErrorStep?: number })
  | (NodeBase & { kind: 'problem' });

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const seconds = (ms: number): string => (ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);
const money = (usd: number): string => (usd === 0 ? '' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);

export function isFiltered(view: TreeView): boolean {
  const f = view.filter;
  return Boolean(f.failedOnly || f.failedEveryTrial || f.inBand || f.tag || f.family);
}

export function describeView(view: TreeView): string {
  const f = view.filter;
  const parts = [
    f.failedOnly ? 'failed only' : '',
    f.failedEveryTrial ? 'failed in every rollout' : '',
    f.inBand ? 'in band' : '',
    f.tag ? `tag ${f.tag}` : '',
    f.family ? `family ${f.family}` : '',
    view.sort !== 'default' ? `sorted by ${view.sort}` : '',
  ].filter(Boolean);
  return parts.join(', ');
}

const statusIcon: Record<RunIndex['status'], NodeIcon> = {
  running: { id: 'sync~spin', color: 'charts.blue' },
  completed: { id: 'pass-filled', color: 'testing.iconPassed' },
  stopped: { id: 'debug-pause', color: 'charts.yellow' },
  failed: { id: 'error', color: 'testing.iconFailed' },
  interrupted: { id: 'debug-disconnect', color: 'charts.orange' },
};

export function runNode(ctx: TreeContext): RunTreeNode {
  const { run } = ctx;
  const last = [...run.generations].reverse().find((g) => g.finished);
  const lastMetrics = last ? ctx.metrics(last.index) : undefined;
  return runRow(run.dir, run.manifest, {
    status: run.status, generations: run.generations.length, rollouts: run.rollouts.size,
    ...(lastMetrics ? { lastSuccessRate: lastMetrics.successRate, lastGeneration: lastMetrics.index } : {}),
  });
}

/**
 * A run's node from what the runs list reads without the event log (manifest, stored generation metrics, the log's
 * tail for the status): the Runs tree's root shows a thousand runs without opening one. Generations and rollouts
 * are those with stored metrics, which for a run that is not running are all of them.
 */
export function runNodeOfFacts(dir: string, manifest: RunManifest, facts: RunFacts): RunTreeNode {
  const status = Object.hasOwn(statusIcon, facts.status) ? (facts.status as RunIndex['status']) : 'interrupted';
  return runRow(dir, manifest, { ...facts, status });
}

type RowFacts = Pick<RunFacts, 'generations' | 'rollouts' | 'lastSuccessRate' | 'lastGeneration'> & { status: RunIndex['status'] };

function runRow(dir: string, manifest: RunManifest, f: RowFacts): RunTreeNode {
  const parts = [f.status, `${f.generations}/${manifest.config.generations} generations`, `${f.rollouts} rollouts`];
  if (f.lastSuccessRate !== undefined) parts.push(`success ${pct(f.lastSuccessRate)} in generation ${f.lastGeneration}`);
  const started = manifest.startedAt.replace('T', ' ').slice(0, 16);
  return {
    kind: 'run',
    key: dir,
    runDir: dir,
    label: runLabel(manifest),
    description: parts.join(' · '),
    tooltip: `${manifest.name} (run ${manifest.runId}), started ${started}\n${dir}\nseed ${manifest.seed} · Coevolve ${manifest.toolVersion}\n${Object.entries(manifest.roles).map(([k, v]) => `${k}: ${v}`).join('\n')}`,
    icon: statusIcon[f.status],
    contextValue: `coevolve.run.${f.status}`,
    collapsible: true,
  };
}

/** Pair statistics stored for a finished generation, by pair id. */
function pairStatsOf(ctx: TreeContext, generation: number): Map<string, PairStatsFull> {
  const m = ctx.metrics(generation);
  return new Map((m?.pairsDetail ?? []).map((p) => [p.pairId, p]));
}

// The index is rebuilt on every refresh, so caching by its generation objects never serves stale groups.
const byPairCache = new WeakMap<GenerationIndex, { count: number; groups: Map<string, RolloutSummary[]> }>();

function rolloutsByPair(g: GenerationIndex): Map<string, RolloutSummary[]> {
  const hit = byPairCache.get(g);
  if (hit && hit.count === g.rollouts.length) return hit.groups;
  const out = new Map<string, RolloutSummary[]>();
  for (const r of g.rollouts) {
    let list = out.get(r.pairId);
    if (!list) out.set(r.pairId, (list = []));
    list.push(r);
  }
  byPairCache.set(g, { count: g.rollouts.length, groups: out });
  return out;
}

function inFlightByPair(run: RunIndex, g: GenerationIndex): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (g.inFlight.length === 0) return out;
  const pairOf = new Map<string, string>();
  for (const e of run.events) if (e.type === 'rollout.started' && e.generation === g.index) pairOf.set(e.rolloutId, e.pairId);
  for (const id of g.inFlight) {
    const pairId = pairOf.get(id);
    if (pairId) out.set(pairId, [...(out.get(pairId) ?? []), id]);
  }
  return out;
}

const rolloutPasses = (view: TreeView, r: RolloutSummary): boolean =>
  (!view.filter.failedOnly || !r.success) && (!view.filter.tag || r.tags.includes(view.filter.tag));

function pairPasses(ctx: TreeContext, view: TreeView, pair: PairPlan, rollouts: RolloutSummary[], stats: PairStatsFull | undefined): boolean {
  const f = view.filter;
  if (f.family && ctx.env(pair.envId)?.family !== f.family) return false;
  if (f.inBand && !(stats && stats.plateau >= 1)) return false;
  if (f.failedEveryTrial) {
    const plain = rollouts.filter((r) => !r.hint);
    if (plain.length === 0 || plain.some((r) => r.success)) return false;
  }
  if (f.failedOnly || f.tag) return rollouts.some((r) => rolloutPasses(view, r));
  return true;
}

export function generationNodes(ctx: TreeContext, view: TreeView): RunTreeNode[] {
  const { run } = ctx;
  const out: RunTreeNode[] = [];
  for (const g of run.generations) {
    const byPair = rolloutsByPair(g);
    const stats = pairStatsOf(ctx, g.index);
    const pairs = isFiltered(view) ? g.pairs.filter((p) => pairPasses(ctx, view, p, byPair.get(p.pairId) ?? [], stats.get(p.pairId))) : g.pairs;
    if (isFiltered(view) && pairs.length === 0) continue;
    const m = ctx.metrics(g.index);
    const planned = g.pairs.length * (run.manifest.config.k + run.manifest.config.hintPlays);
    const k = run.manifest.config.k;
    const parts: string[] = [];
    // A generation without metrics is playing only while its run is; otherwise it stopped there and resume continues it.
    const playing = !g.finished && run.status === 'running';
    if (m) {
      parts.push(`success ${pct(m.successRate)}`, `pass^${k} ${pct(m.passHatK[k] ?? 0)}`, `in band ${pct(m.inBandShare)}`, designLevelLabel(m.meanDifficulty, 1));
      if (m.measuredDifficulty) parts.push(measuredLabel(m.measuredDifficulty.archive.mean));
    } else if (g.finished) {
      parts.push('finished');
    } else {
      parts.push(playing ? `playing ${g.rollouts.length}/${planned} rollouts` : `${run.status} at ${g.rollouts.length}/${planned} rollouts${run.status === 'completed' ? '' : ' (resume continues it)'}`);
    }
    if (isFiltered(view)) parts.push(`${pairs.length}/${g.pairs.length} pairs`);
    else parts.push(`${g.pairs.length} pairs`);
    const failed = g.rollouts.filter((r) => !r.success).length;
    out.push({
      kind: 'generation',
      key: `${run.dir}|g${g.index}`,
      runDir: run.dir,
      generation: g.index,
      label: `Generation ${g.index}`,
      description: parts.join(' · '),
      tooltip: [
        `${generationLabel(g.index, run.manifest.config.generations)} · agent ${g.agentId}`,
        `${g.rollouts.length} rollouts finished (${failed} failed)${g.inFlight.length ? `, ${g.inFlight.length} ${playing ? 'running' : 'started but not finished'}` : ''}`,
        m ? `success ${pct(m.successRate)} · verifier ${pct(m.verifierSuccessRate)} · mean reward ${m.meanReward.toFixed(2)} · regret ${m.regret.toFixed(2)} · cost ${money(m.costUsd) || '$0'}` : '',
        m ? `${designLevelLabel(m.meanDifficulty, 1)} (mean of the pairs played): ${difficultyScales.design}` : '',
        m?.measuredDifficulty ? `${measuredLabel(m.measuredDifficulty.archive.mean, m.measuredDifficulty.archive.se)} (archive mean; agent ability ${fixed(m.measuredDifficulty.agent.ability, 2)}): ${difficultyScales.measured}` : '',
      ].filter(Boolean).join('\n'),
      icon: g.finished ? { id: 'layers' } : playing ? { id: 'sync~spin', color: 'charts.blue' } : { id: 'debug-pause', color: 'charts.yellow' },
      contextValue: 'coevolve.generation',
      collapsible: true,
    });
  }
  return out;
}

function sortBy<T>(items: T[], key: (t: T) => number): T[] {
  return [...items].sort((a, b) => key(b) - key(a));
}

export function pairNodes(ctx: TreeContext, view: TreeView, generation: number): RunTreeNode[] {
  const { run } = ctx;
  const g = run.generations.find((x) => x.index === generation);
  if (!g) return [];
  const byPair = rolloutsByPair(g);
  const running = inFlightByPair(run, g);
  const stats = pairStatsOf(ctx, generation);
  const shown = g.pairs.filter((p) => !isFiltered(view) || pairPasses(ctx, view, p, byPair.get(p.pairId) ?? [], stats.get(p.pairId)));
  return sortedPairs(shown, view.sort, byPair, stats).map((p) =>
    pairNode(ctx, generation, p, { rollouts: byPair.get(p.pairId) ?? [], stats: stats.get(p.pairId), running: running.get(p.pairId)?.length ?? 0 }),
  );
}

/** Highest first by mean reward, total duration or total cost; as planned otherwise. */
function sortedPairs(pairs: PairPlan[], sort: SortKey, byPair: Map<string, RolloutSummary[]>, stats: Map<string, PairStatsFull>): PairPlan[] {
  const total = (p: PairPlan, f: (r: RolloutSummary) => number): number => (byPair.get(p.pairId) ?? []).reduce((s, r) => s + f(r), 0);
  if (sort === 'reward') return sortBy(pairs, (p) => stats.get(p.pairId)?.meanReward ?? -1);
  if (sort === 'duration') return sortBy(pairs, (p) => total(p, (r) => r.durationMs));
  if (sort === 'cost') return sortBy(pairs, (p) => total(p, (r) => r.costUsd));
  return pairs;
}

/** What the tree knows of one pair in a generation: its finished rollouts, its stored stats, how many still run. */
interface PairSeen {
  rollouts: RolloutSummary[];
  stats: PairStatsFull | undefined;
  running: number;
}

function pairNode(ctx: TreeContext, generation: number, p: PairPlan, seen: PairSeen): RunTreeNode {
  const { run } = ctx;
  const { stats: s } = seen;
  const env = ctx.env(p.envId);
  const user = ctx.user?.(p.userId);
  const band = run.manifest.config.band;
  const inBand = s !== undefined && s.successRate >= band.low && s.successRate <= band.high;
  return {
    kind: 'pair' as const,
    key: `${run.dir}|g${generation}|${p.pairId}`,
    runDir: run.dir,
    generation,
    pairId: p.pairId,
    envId: p.envId,
    userId: p.userId,
    label: `${environmentName(env, p.envId)} × ${userName(user, p.userId)}`,
    description: pairDescription(seen, inBand, env),
    tooltip: pairTooltip(run, p, seen, inBand, env, user),
    icon: pairIcon(seen, inBand, run.status),
    contextValue: 'coevolve.pair',
    collapsible: true,
  };
}

/** "2/4 · in the middle, in band · design level 3 · regret 0.25 · 1 running": success first, then what else is known. */
function pairDescription(seen: PairSeen, inBand: boolean, env: EnvInfo | undefined): string {
  const { stats: s, running } = seen;
  const plain = noHintPasses(seen.rollouts);
  const parts: string[] = [s ? successLabel(s.successes, s.plays) : successLabel(plain.passed, plain.plays)];
  // One classification, the controller's own (stored with the pair): the icon, this text and the tooltip agree.
  if (s) parts.push(inBand ? `${pairClassLabel[s.class]}, in band` : pairClassLabel[s.class] ?? s.class);
  if (env) parts.push(designLevelLabel(env.difficulty));
  if (s && s.regret > 0) parts.push(`regret ${s.regret.toFixed(2)}`);
  if (running > 0) parts.push(`${running} running`);
  return parts.join(' · ');
}

/** How many of the pair's finished no-hint rollouts passed, of how many. */
function noHintPasses(rollouts: RolloutSummary[]): { passed: number; plays: number } {
  const plain = rollouts.filter((r) => !r.hint);
  return { passed: plain.filter((r) => r.success).length, plays: plain.length };
}

function pairIcon({ stats: s, running }: PairSeen, inBand: boolean, status: RunIndex['status']): NodeIcon {
  if (running > 0 && status === 'running') return { id: 'sync~spin', color: 'charts.blue' };
  if (!s) return { id: 'symbol-interface' };
  if (s.class === 'too_easy') return { id: 'check-all', color: 'testing.iconPassed' };
  if (s.class === 'too_hard') return { id: 'circle-slash', color: 'testing.iconFailed' };
  return inBand ? { id: 'target', color: 'charts.purple' } : { id: 'debug-stackframe-focused', color: 'charts.purple' };
}

function pairTooltip(run: RunIndex, p: PairPlan, seen: PairSeen, inBand: boolean, env: EnvInfo | undefined, user: UserInfo | undefined): string {
  const { stats: s } = seen;
  const { k, band } = run.manifest.config;
  const plain = noHintPasses(seen.rollouts);
  return [
    `pair ${p.pairId} (${p.source === 'child' ? 'a new child' : p.source === 'replay' ? 'replayed from the archive' : 'a seed'})`,
    `environment ${p.envId}${env ? ` — ${env.title} (${env.family}, ${designLevelLabel(env.difficulty)})` : ''}`,
    `user ${p.userId}${user ? ` — ${userName(user, p.userId)}` : ''}`,
    s ? `success ${successLabel(s.successes, s.plays)} over the no-hint rollouts · pass@${k} ${pct(s.passAtK[k] ?? 0)} · pass^${k} ${pct(s.passHatK[k] ?? 0)}` : `${plain.passed}/${plain.plays} no-hint rollouts passed`,
    s ? `class: ${pairClassLabel[s.class] ?? s.class}${inBand ? ` (inside the ${pct(band.low)}–${pct(band.high)} band)` : ` (band ${pct(band.low)}–${pct(band.high)})`} · regret ${s.regret.toFixed(2)} (hint reward − plain reward) · fitness ${s.fitness.toFixed(2)}` : '',
  ].filter(Boolean).join('\n');
}

export function rolloutNodes(ctx: TreeContext, view: TreeView, generation: number, pairId: string): RunTreeNode[] {
  const { run } = ctx;
  const g = run.generations.find((x) => x.index === generation);
  if (!g) return [];
  // As played: plain rollouts by their number, then the hint plays (the log holds them in finish order).
  let rs = (rolloutsByPair(g).get(pairId) ?? []).filter((r) => rolloutPasses(view, r)).sort((a, b) => Number(a.hint) - Number(b.hint) || a.trial - b.trial);
  if (view.sort === 'reward') rs = sortBy(rs, (r) => r.reward);
  else if (view.sort === 'duration') rs = sortBy(rs, (r) => r.durationMs);
  else if (view.sort === 'cost') rs = sortBy(rs, (r) => r.costUsd);
  const nodes: RunTreeNode[] = rs.map((r) => rolloutNode(run.dir, r));
  if (!view.filter.failedOnly && !view.filter.tag) {
    for (const id of inFlightByPair(run, g).get(pairId) ?? []) {
      nodes.push({
        kind: 'rollout', key: `${run.dir}|r|${id}`, runDir: run.dir, generation, rolloutId: id, pairId, running: true,
        label: id, description: run.status === 'running' ? 'running…' : 'not finished (replayed on resume)', tooltip: `${id} has started but not finished`,
        icon: run.status === 'running' ? { id: 'loading~spin' } : { id: 'circle-large-outline' }, contextValue: 'coevolve.rollout.running', collapsible: false,
      });
    }
  }
  return nodes;
}

export function rolloutNode(runDir: string, r: RolloutSummary): RunTreeNode {
  const outcome = r.status === 'error' ? 'error' : r.success ? 'passed' : 'failed';
  const icon: NodeIcon = r.status === 'error'
    ? { id: 'warning', color: 'list.warningForeground' }
    : r.success
      ? { id: 'pass', color: 'testing.iconPassed' }
      : r.status === 'truncated'
        ? { id: 'watch', color: 'testing.iconFailed' }
        : { id: 'error', color: 'testing.iconFailed' };
  const parts = [`reward ${r.reward.toFixed(2)}`, `${r.steps} steps`, seconds(r.durationMs)];
  const cost = money(r.costUsd);
  if (cost) parts.push(cost);
  if (r.status === 'truncated') parts.push('truncated');
  return {
    kind: 'rollout',
    key: `${runDir}|r|${r.id}`,
    runDir,
    generation: r.generation,
    rolloutId: r.id,
    pairId: r.pairId,
    running: false,
    ...(r.firstErrorStep !== undefined ? { firstErrorStep: r.firstErrorStep } : {}),
    label: `rollout ${r.trial}${r.hint ? ' (hint play)' : ''}`,
    description: parts.join(' · '),
    tooltip: [
      `${r.id}: ${outcome} (${r.status})`,
      `reward ${r.reward.toFixed(3)} · ${r.steps} steps · ${seconds(r.durationMs)} · ${r.tokens} tokens${cost ? ` · ${cost}` : ''}`,
      r.tags.length ? `tags: ${r.tags.join(', ')}` : '',
      r.firstErrorStep !== undefined ? `first error at step ${r.firstErrorStep}` : '',
    ].filter(Boolean).join('\n'),
    icon,
    contextValue: 'coevolve.rollout',
    collapsible: false,
  };
}

/** Tags and families present in a run, for the filter pickers. */
export function filterChoices(ctx: TreeContext): { tags: string[]; families: string[] } {
  const tags = new Set<string>();
  for (const r of ctx.run.rollouts.values()) for (const t of r.tags) tags.add(t);
  const families = new Set<string>();
  for (const g of ctx.run.generations) for (const p of g.pairs) {
    const f = ctx.env(p.envId)?.family;
    if (f) families.add(f);
  }
  return { tags: [...tags].sort(), families: [...families].sort() };
}

export function childrenOf(ctx: TreeContext, view: TreeView, node: RunTreeNode): RunTreeNode[] {
  switch (node.kind) {
    case 'run':
      return generationNodes(ctx, view);
    case 'generation':
      return pairNodes(ctx, view, node.generation);
    case 'pair':
      return rolloutNodes(ctx, view, node.generation, node.pairId);
    default:
      return [];
  }
}

export function problemNode(dir: string, message: string): RunTreeNode {
  return {
    kind: 'problem', key: `${dir}|problem`, runDir: dir, label: dir.split(/[\\/]/).pop() ?? dir, description: 'cannot be read',
    tooltip: message, icon: { id: 'warning', color: 'list.warningForeground' }, contextValue: 'coevolve.problem', collapsible: false,
  };
}
