import { pairPosterior, screeningVerdict, screensOut, type PairPosterior } from '../metrics/pairEvidence.js';

/** The child's plays of its deciding look on one of its look environments, with the model's prediction there. */
export interface LookScreen {
  envId: string;
  successes: number;
  trials: number;
  /** Predicted success of the current agent with the child on this environment. */
  predicted: number;
}

export type UserPairing =
  | { envId: string; screen: { successes: number; trials: number }; predicted: number; posterior: PairPosterior; moved: boolean }
  | { refused: string };

/**
 * Which environment an admitted user child is paired with (ARCHITECTURE.md, "User admission"). Admission proved the
 * child harder than its parent; whether a pair with it sits in the band is a separate question, answered by screening
 * as for every child. The parent pair's environment comes first; when the child's plays there screen it out, the
 * look environment (played in the same deciding look) whose screening posterior is most likely in band takes it, if
 * any passes. Refusing the user there, as the loop did, refused exactly the children that made the most difference:
 * a child harder by 6 of 16 paired plays drops a parent pair at 0.4 to 0, and such children were screened out in
 * 3 of the 6 bench seeds while only the mildest ones entered.
 */
export function pairAdmittedUser(looks: LookScreen[], band: { low: number; high: number }): UserPairing {
  const judged = looks.filter((l) => l.trials > 0).map((l) => ({ l, post: pairPosterior([{ age: 0, successes: l.successes, trials: l.trials }], l.predicted, band) }));
  const passes = judged.filter((j) => !screensOut(j.post));
  const first = looks[0];
  const home = passes.find((j) => j.l.envId === first?.envId);
  const pick = home ?? [...passes].sort((a, b) => b.post.pInBand - a.post.pInBand || a.l.envId.localeCompare(b.l.envId))[0];
  if (!pick) {
    return { refused: judged.map((j) => `${j.l.envId}: ${screeningVerdict(j.l, j.l.predicted, j.post)}`).join('; ') };
  }
  return { envId: pick.l.envId, screen: { successes: pick.l.successes, trials: pick.l.trials }, predicted: pick.l.predicted, posterior: pick.post, moved: pick.l.envId !== first?.envId };
}

/**
 * The one environment an admitted user child is screened on when every look environment screened it out (the looks
 * go where the user matters most, which for a much harder child is where it is hopeless): the active environment,
 * not a look one, whose predicted success with the child is nearest the band's centre; ties by id. One fallback costs
 * 4 screening plays; a child harder by 10 of 32 paired plays was refused for want of it.
 */
export function fallbackEnvironment(options: { envId: string; predicted: number }[], centre: number): { envId: string; predicted: number } | undefined {
  return [...options].sort((a, b) => Math.abs(a.predicted - centre) - Math.abs(b.predicted - centre) || a.envId.localeCompare(b.envId))[0];
}
