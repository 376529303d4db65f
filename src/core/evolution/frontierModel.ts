import { pairPosterior, type AgedPlays, type PairPosterior } from '../metrics/pairEvidence.js';
import { fitRasch, type RaschCell, type RaschFit, type RaschParameter } from '../metrics/rasch.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive, PairEntry } from './archive.js';

/** The fitted model of a generation and every pair's posterior for the current agent. */
export interface FrontierModel {
  fit: RaschFit;
  agentId: string;
  posterior: Map<string, PairPosterior>;
  /** Posterior of a pair that is not (yet) in the archive, from the model alone plus optional plays. */
  posteriorOf(envId: string, userId: string, plays?: AgedPlays[]): PairPosterior;
  /** The seed (root) user a user descends from: the user half of a niche. */
  userRoot(userId: string): string;
}

/** Rasch parameters of everything the archive knows: agents in promotion order, raced candidates, envs, users. */
function raschParameters(archive: Archive): RaschParameter[] {
  const { ledger } = archive;
  const params: RaschParameter[] = [];
  for (const a of ledger.agents) params.push({ kind: 'agent', id: a.id, parent: a.parent, priorSd: a.parent ? 1 : 2 });
  const known = new Set(ledger.agents.map((a) => a.id));
  for (const c of ledger.candidates) if (!known.has(c.id)) params.push({ kind: 'agent', id: c.id, parent: c.parent, priorSd: 1 });
  const frozen = new Set(ledger.frozen?.source === 'generated' ? [...ledger.frozen.test, ...ledger.frozen.promotion].map((p) => p.envId) : []);
  for (const e of archive.envs.values()) {
    const parent = e.lineage.parent && archive.envs.has(e.lineage.parent) ? e.lineage.parent : null;
    params.push({ kind: 'environment', id: e.id, parent, priorSd: parent ? 1 : 2, anchor: !parent && !frozen.has(e.id) && e.lineage.generation === 0 });
  }
  for (const u of archive.users.values()) {
    const parent = u.lineage.parent && archive.users.has(u.lineage.parent) ? u.lineage.parent : null;
    params.push({ kind: 'user', id: u.id, parent, priorSd: parent ? 1 : 2, anchor: !parent });
  }
  return params;
}

function cellsOf(archive: Archive): RaschCell[] {
  return Object.entries(archive.ledger.cells)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => {
      const [agent, env, user] = k.split('|') as [string, string, string];
      return { agent, env, user, successes: v.successes, trials: v.trials };
    });
}

/** A pair's plays aged by promotions since each agent played (agents outside the promotion order are ignored). */
export function agedPlays(archive: Archive, pair: PairEntry, currentAgentId: string): AgedPlays[] {
  const order = archive.ledger.agents.map((a) => a.id);
  const now = order.indexOf(currentAgentId);
  return Object.entries(pair.plays ?? {})
    .filter(([agent]) => order.includes(agent))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agent, v]) => ({ age: Math.max(0, now - order.indexOf(agent)), successes: v.successes, trials: v.trials }));
}

export function buildFrontierModel(archive: Archive, agentId: string, band: RunConfig['band']): FrontierModel {
  const fit = fitRasch(raschParameters(archive), cellsOf(archive));
  const posterior = new Map<string, PairPosterior>();
  for (const p of [...archive.pairs.values()].sort((a, b) => a.pairId.localeCompare(b.pairId))) {
    posterior.set(p.pairId, pairPosterior(agedPlays(archive, p, agentId), fit.predict(agentId, p.envId, p.userId), band));
  }
  const rootCache = new Map<string, string>();
  const userRoot = (id: string): string => {
    const cached = rootCache.get(id);
    if (cached) return cached;
    let cur = id;
    for (let i = 0; i < 1000; i++) {
      const parent = archive.users.get(cur)?.lineage.parent;
      if (!parent || !archive.users.has(parent)) break;
      cur = parent;
    }
    rootCache.set(id, cur);
    return cur;
  };
  return {
    fit,
    agentId,
    posterior,
    posteriorOf: (envId, userId, plays = []) => pairPosterior(plays, fit.predict(agentId, envId, userId), band),
    userRoot,
  };
}
