import type { EnvironmentSpec } from '../spec/environment.js';

/**
 * Where a user child's looks are played (ARCHITECTURE.md, "User admission"): the parent pair's environment, then up
 * to `others` active environments of other families, one per family, never a frozen held-out one, chosen where the
 * user matters most: the most facts only the user gives (required facts the instruction leaves out), then the highest
 * predicted success for the parent user, then the id. A harder user can only cost a play the parent wins, and only
 * where the agent needs the user: a pair the parent seldom wins, or whose task needs nothing from the user, has few
 * plays to lose (picking environments nearest 0.5 left the loop's looks at 0.02-0.12 wins per play).
 */
export function userLookEnvironments(input: {
  parentEnv: EnvironmentSpec;
  active: EnvironmentSpec[];
  frozen: ReadonlySet<string>;
  /** Predicted success of the current agent on an environment with the parent user. */
  predicted: (envId: string) => number;
  others: number;
}): EnvironmentSpec[] {
  const options = input.active.filter((e) => e.family !== input.parentEnv.family && !input.frozen.has(e.id) && e.id !== input.parentEnv.id)
    .map((e) => ({ e, needs: e.user.requiredFacts.length, p: input.predicted(e.id) }))
    .sort((a, b) => b.needs - a.needs || b.p - a.p || a.e.id.localeCompare(b.e.id));
  const out = [input.parentEnv];
  const families = new Set([input.parentEnv.family]);
  for (const { e } of options) {
    if (out.length >= 1 + input.others) break;
    if (families.has(e.family)) continue;
    families.add(e.family);
    out.push(e);
  }
  return out;
}
