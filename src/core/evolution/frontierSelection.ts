import { evidenceRules } from '../metrics/pairEvidence.js';
import type { RunRecorder } from '../ports/runStore.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import type { Archive, FrozenSets, PairEntry } from './archive.js';
import type { FrontierModel } from './frontierModel.js';

/** Held-out pairs made at run start from the seed families (fresh content), apart from every archive pair. */
export interface HeldOutSeeds {
  test: { env: EnvironmentSpec; user: UserProfile }[];
  promotion: { env: EnvironmentSpec; user: UserProfile }[];
}

/**
 * Freezes the held-out sets at run start. With generated sets their environments join the archive's spec store
 * (never a pair, so never played for selection) and the run directory; without, the seed environments are used on
 * their own rollout ids and the metrics say so (`source: seeds`).
 */
export async function drawFrozenSets(archive: Archive, seeds: { environments: EnvironmentSpec[]; users: UserProfile[]; heldOut?: HeldOutSeeds }, recorder: Pick<RunRecorder, 'writeEnvironment' | 'writeUser'>): Promise<FrozenSets> {
  if (seeds.heldOut && seeds.heldOut.test.length > 0 && seeds.heldOut.promotion.length > 0) {
    const refs = async (list: HeldOutSeeds['test']): Promise<FrozenSets['test']> => {
      const out: FrozenSets['test'] = [];
      for (const { env, user } of list) {
        if (!archive.envs.has(env.id)) {
          archive.addEnv(env);
          await recorder.writeEnvironment(env);
        }
        if (!archive.users.has(user.id)) {
          archive.addUser(user);
          await recorder.writeUser(user);
        }
        out.push({ envId: env.id, userId: user.id });
      }
      return out;
    };
    return { source: 'generated', test: await refs(seeds.heldOut.test), promotion: await refs(seeds.heldOut.promotion) };
  }
  const users = seeds.users.map((u) => u.id);
  const pairs = seeds.environments.map((e, i) => ({ envId: e.id, userId: users[i % users.length]! }));
  return { source: 'seeds', test: pairs, promotion: pairs.map((p, i) => ({ envId: p.envId, userId: users[(i + 1) % users.length]! })) };
}

export interface StatusChange {
  pair: PairEntry;
  to: 'retired' | 'quarantined' | 'active';
}

/**
 * Confident retirement and quarantine: a pair with enough of its own evidence that is too easy (P(p > high) >= c) is
 * retired, too hard (P(p < low) >= c) is quarantined; most confident first, never below `minArchive` active pairs
 * and never the last one: a run whose archive empties plays nothing in its next generations and still "completes".
 * A quarantined pair whose evidence is no longer too hard for a new agent (old plays faded) comes back.
 */
export function selectByEvidence(archive: Archive, model: FrontierModel, minArchive: number): StatusChange[] {
  const changes: StatusChange[] = [];
  // Only a new agent can make a quarantined pair reachable again (the pair is not played while in quarantine).
  for (const p of [...archive.pairs.values()].filter((x) => x.quarantined && !x.retired).sort((a, b) => a.pairId.localeCompare(b.pairId))) {
    if (p.quarantinedFor !== model.agentId && model.posterior.get(p.pairId)?.class !== 'too_hard') {
      p.quarantined = false;
      delete p.quarantinedFor;
      changes.push({ pair: p, to: 'active' });
    }
  }
  const decided = archive
    .activePairs()
    .map((p) => ({ p, post: model.posterior.get(p.pairId)! }))
    .filter(({ post }) => (post.class === 'too_easy' || post.class === 'too_hard') && post.weightedPlays >= evidenceRules.minPlaysToDecide)
    .sort((a, b) => Math.max(b.post.pAbove, b.post.pBelow) - Math.max(a.post.pAbove, a.post.pBelow) || a.p.pairId.localeCompare(b.p.pairId));
  let active = archive.activePairs().length;
  const floor = Math.max(1, minArchive);
  for (const { p, post } of decided) {
    if (active <= floor) break;
    if (post.class === 'too_easy') {
      p.retired = 'too_easy';
      changes.push({ pair: p, to: 'retired' });
    } else {
      p.quarantined = true;
      p.quarantinedFor = model.agentId;
      changes.push({ pair: p, to: 'quarantined' });
    }
    active--;
  }
  return changes;
}

/**
 * A pair the cap may replace: played, or screened on admission. Screening plays are a measurement: a child admitted
 * generations ago for an agent since replaced is in the fit by them, and protecting it until its turn to be played
 * (4 fresh children a generation) kept most of a fast-moving archive out of reach (77 % of the final pairs on the
 * level-1.5 demo had never been played).
 */
export const isMeasured = (p: PairEntry): boolean => p.lastPlayed >= 0 || p.screening !== undefined;

/**
 * Keeps the archive within `maxArchive` active pairs by retiring the measured pairs (played, or screened on
 * admission) the fitted model places furthest from the band's centre; a pair never measured keeps its place until its
 * first measurement. The fit pools a pair's
 * plays with its family's, its lineage's and its user's, and ranked better than the pair's own posterior: in the
 * synthetic world of the controller's tests (1 logit too hard, 5 generations, 40 seeds) 62.5 % of a capped archive
 * was truly in band against 52.7 % by the posterior's chance of being in band (45.6 % uncapped); on two real demos
 * (seeds 2026 and 2, cap 35) another draw of eval would read 62.5 % and 41.2 % against 57.8 % and 40.2 %. Before, the
 * lowest PLR score went first, and that score is how undecided a pair is: a pair confidently in band was the first
 * to go.
 */
export function capByEvidence(archive: Archive, model: FrontierModel, maxArchive: number, centre: number): PairEntry[] {
  const distance = (p: PairEntry): number => Math.abs(model.fit.predict(model.agentId, p.envId, p.userId) - centre);
  const active = archive.activePairs();
  const measured = active.filter(isMeasured).sort((a, b) => distance(b) - distance(a) || a.pairId.localeCompare(b.pairId));
  const retired = measured.slice(0, Math.max(0, active.length - maxArchive));
  for (const p of retired) p.retired = 'archive_full';
  return retired;
}
