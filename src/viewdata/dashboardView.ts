import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import { readEnvironment, readGenerationMetrics, type RunIndex } from '../store/runReader.js';
import type { DashboardView, LineageNode, RunOverview } from '../webview/protocol.js';

/** The stored per-generation metrics of a run (never recomputed here) and what is still pending. */
export function runOverview(run: RunIndex, ref: string = run.dir): RunOverview {
  const generations: GenerationMetrics[] = [];
  const pendingGenerations: number[] = [];
  for (const g of run.generations) {
    const m = g.finished ? readGenerationMetrics<GenerationMetrics>(run.dir, g.index) : undefined;
    if (m) generations.push(m);
    else pendingGenerations.push(g.index);
  }
  const c = run.manifest.config;
  return {
    runDir: ref, name: run.manifest.name, runId: run.manifest.runId, status: run.status, startedAt: run.manifest.startedAt,
    k: c.k, band: { low: c.band.low, high: c.band.high }, roles: run.manifest.roles, generations, pendingGenerations,
  };
}

/**
 * Lineage of every environment and user version (from spec.added / spec.retired events), each with the success
 * rate its pairs had in the last generation that played it (the stored pair statistics, not recomputed).
 */
export function lineage(run: RunIndex, overview: RunOverview): LineageNode[] {
  const last = new Map<string, { generation: number; rates: number[] }>();
  for (const m of overview.generations) {
    for (const p of m.pairsDetail) {
      for (const id of [p.envId, p.userId]) {
        const cur = last.get(id);
        if (!cur || cur.generation < m.index) last.set(id, { generation: m.index, rates: [p.successRate] });
        else if (cur.generation === m.index) cur.rates.push(p.successRate);
      }
    }
  }
  const nodes: LineageNode[] = [];
  for (const s of run.specs.values()) {
    const node: LineageNode = { kind: s.kind, id: s.id, parent: s.parent, operator: s.operator, generation: s.generation };
    if (s.retired) node.retired = s.retired;
    if (s.kind === 'environment') {
      try {
        const e = readEnvironment(run.dir, s.id);
        node.family = e.family;
        node.difficulty = e.difficulty;
      } catch {
        // listed without family and difficulty
      }
    }
    const played = last.get(s.id);
    // One spec can sit in several pairs of a generation; the viewer shows their mean as "its" rate.
    if (played) node.lastPlayed = { generation: played.generation, successRate: played.rates.reduce((a, b) => a + b, 0) / played.rates.length, pairs: played.rates.length };
    nodes.push(node);
  }
  return nodes;
}

export function dashboardView(run: RunIndex, compare: RunIndex | undefined, refOf: (dir: string) => string = (d) => d): DashboardView {
  const overview = runOverview(run, refOf(run.dir));
  return {
    run: overview,
    lineage: lineage(run, overview),
    rejections: run.rejections.map((r) => ({ kind: r.kind, id: r.id, parent: r.parent, operator: r.operator, reason: r.reason, generation: r.generation })),
    agentUpdates: run.agentUpdates.map((a) => ({ generation: a.generation, fromId: a.fromId, toId: a.toId, change: a.change, promoted: a.promoted })),
    compare: compare ? runOverview(compare, refOf(compare.dir)) : null,
  };
}
