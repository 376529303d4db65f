import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import { environmentName, userName } from '../webview/names.js';
import type { DashboardView, GenerationFigures, LineageNode, RunOverview } from '../webview/protocol.js';
import { runAimByMove } from '../store/runAims.js';
import { childAim } from '../store/runReader.js';
import type { RunSource } from './liveRun.js';

/**
 * The stored per-generation metrics of a run (never recomputed here) and what is still pending. Metrics, environment
 * and user facts come through the source (LiveRun or RunOutline), which reads each file once and keeps it.
 */
export function runOverview(source: RunSource, ref: string = source.run.dir): RunOverview {
  const run = source.run;
  const generations: GenerationFigures[] = [];
  const pendingGenerations: number[] = [];
  for (const g of run.generations) {
    const m = g.finished ? source.metrics(g.index) : undefined;
    if (m) generations.push(figuresOf(m));
    else pendingGenerations.push(g.index);
  }
  const c = run.manifest.config;
  return {
    runDir: ref, name: run.manifest.name, runId: run.manifest.runId, status: run.status, startedAt: run.manifest.startedAt,
    k: c.k, band: { low: c.band.low, high: c.band.high }, roles: run.manifest.roles, generations, pendingGenerations,
  };
}

/** The figures of a generation's metrics: the same object without its per-pair and per-node lists (protocol.ts). */
export function figuresOf(m: GenerationMetrics): GenerationFigures {
  const { pairsDetail: _pairs, lineage: _lineage, archiveBand, ...figures } = m;
  if (!archiveBand) return figures;
  const { pairs: _bandPairs, ...band } = archiveBand;
  return { ...figures, archiveBand: band };
}

/** The stored metrics of the generations that have them (read once by the source, which keeps them). */
function storedMetrics(source: RunSource): GenerationMetrics[] {
  return source.run.generations.flatMap((g) => {
    const m = g.finished ? source.metrics(g.index) : undefined;
    return m ? [m] : [];
  });
}

/**
 * Lineage of every environment and user version (from spec.added / spec.retired events), each with the success
 * rate its pairs had in the last generation that played it (the stored pair statistics, not recomputed).
 */
export function lineage(source: RunSource): LineageNode[] {
  const run = source.run;
  const last = new Map<string, { generation: number; rates: number[]; successes: number; plays: number }>();
  const measured = new Map<string, NonNullable<LineageNode['measured']>>();
  for (const m of storedMetrics(source)) {
    for (const p of m.pairsDetail) {
      for (const id of [p.envId, p.userId]) {
        const cur = last.get(id);
        if (!cur || cur.generation < m.index) last.set(id, { generation: m.index, rates: [p.successRate], successes: p.successes, plays: p.plays });
        else if (cur.generation === m.index) {
          cur.rates.push(p.successRate);
          cur.successes += p.successes;
          cur.plays += p.plays;
        }
      }
    }
    // Metrics v2: the latest fitted difficulty of every node (null before any play).
    for (const n of m.lineage ?? []) if (n.measured !== null && n.se !== null) measured.set(n.id, { value: n.measured, se: n.se, plays: n.plays, generation: m.index });
  }
  const nodes: LineageNode[] = [];
  for (const s of run.specs.values()) {
    const node: LineageNode = { kind: s.kind, id: s.id, parent: s.parent, operator: s.operator, generation: s.generation };
    if (s.retired) node.retired = s.retired;
    if (s.aim) node.aim = s.aim;
    // A spec whose file is missing or invalid is listed without family, difficulty and name.
    if (s.kind === 'environment') {
      const e = source.env(s.id);
      if (e) {
        node.family = e.family;
        node.difficulty = e.difficulty;
        node.name = environmentName({ title: e.title }, s.id);
      }
    } else {
      const u = source.user?.(s.id);
      if (u) node.name = userName({ persona: u.persona }, s.id);
    }
    const fitted = measured.get(s.id);
    if (fitted) node.measured = fitted;
    const played = last.get(s.id);
    // One spec can sit in several pairs of a generation; the viewer shows their mean as "its" rate.
    if (played) node.lastPlayed = { generation: played.generation, successRate: played.rates.reduce((a, b) => a + b, 0) / played.rates.length, pairs: played.rates.length, successes: played.successes, plays: played.plays };
    nodes.push(node);
  }
  return nodes;
}

export function dashboardView(source: RunSource, compare: RunSource | undefined, refOf: (dir: string) => string = (d) => d): DashboardView {
  const run = source.run;
  const overview = runOverview(source, refOf(run.dir));
  return {
    run: overview,
    lineage: lineage(source),
    rejections: run.rejections.map((r) => {
      const aim = childAim(r);
      return { kind: r.kind, id: r.id, parent: r.parent, operator: r.operator, reason: r.reason, generation: r.generation, ...(aim ? { aim } : {}) };
    }),
    agentUpdates: run.agentUpdates.map((a) => ({ generation: a.generation, fromId: a.fromId, toId: a.toId, change: a.change, promoted: a.promoted, ...(a.heldOut ? { heldOut: a.heldOut } : {}) })),
    retirements: run.events.flatMap((e) => {
      if (e.type !== 'spec.retired') return [];
      // A retired pair is named "<envId>@<pairId>"; a retired spec by its own id.
      const [envId, pairId] = e.id.split('@');
      return [{ generation: e.generation, kind: e.kind, id: e.id, envId: envId ?? e.id, ...(pairId ? { pairId } : {}), reason: e.reason }];
    }),
    aimByMove: runAimByMove(run.events),
    compare: compare ? runOverview(compare, refOf(compare.run.dir)) : null,
  };
}
