import { createRng, hashString } from '../../core/ports/rng.js';
import { realismIndicatorBounds } from '../../core/metrics/realismIndicators.js';
import type { AgentGenes } from '../../core/spec/agent.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import type { UserProfile } from '../../core/spec/user.js';
import { resolveKnobs } from '../families/family.js';
import { builtinFamilies } from '../families/registry.js';
import { playDialogue, type DialogueOutcome } from './dialoguePlay.js';

/**
 * What a user move does, estimated on the rule-based user itself before any play: the demo's starting agent talks
 * with the parent and with the child on the same level-2 tasks of every built-in family and the same rollout ids
 * (dialogue-only plays, well under a millisecond each), and the child's paired loss of "told every needed fact and
 * waited for" is the move's effect on the user's share in success.
 *
 * Why the evolver needs it: the loop's paired test can only see a move that costs many of the plays its parent wins.
 * Moves that cost a few per cent (fragments for a precise user, patience 30 -> 18 on a 7-turn dialogue, expertise
 * of a fully cooperative user) were refused after 16-48 paired plays at 0-3 wins, and every user move had the same
 * prior effect, so the controller took them in name order (enable_fragments and enable_impatience first).
 */
export const moveEstimate = {
  /** Without an agent to estimate for: the demo's starting agent (environments/demo.run.yaml). */
  genes: { askFirst: 0.9, questionBudget: 2, explore: 0.9, verify: 0.6, idiom: 'grep', persistence: 1 } as AgentGenes,
  level: 2,
  tasksPerFamily: 25,
  /**
   * A harder move is offered when the child loses at least this share of the dialogues its parent serves: on a pair
   * the parent wins 60 % of the time that is >= 0.15 wins per paired play, what 16-48 paired plays can tell.
   */
  minLostShare: 0.25,
  /** Realism margin: real plays are longer than dialogue-only ones (retries), so walk-aways come more often there. */
  realismMargin: 0.1,
};

export interface DialogueTally {
  /** Per task: told every needed fact and the user waited. */
  served: boolean[];
  replies: number;
  disclosing: number;
  walked: number;
  plays: number;
}

let tasks: { env: EnvironmentSpec; id: string }[] | undefined;
function estimateTasks(): { env: EnvironmentSpec; id: string }[] {
  tasks ??= builtinFamilies.filter((f) => f.name !== 'format-check').flatMap((f) => Array.from({ length: moveEstimate.tasksPerFamily }, (_, i) => ({
    env: f.generate({ knobs: resolveKnobs(f, { level: moveEstimate.level }), contentSeed: hashString(`user-move-estimate/${f.name}/${i}`) & 0x7fffffff }, createRng(0)),
    id: `ume-${f.name}-${i}`,
  })));
  return tasks;
}

const cache = new Map<string, DialogueTally>();

/** The dialogue-only plays of one user (memoised by what shapes its answers: behaviour, expertise and facts). */
export function dialogueTally(user: UserProfile, genes: AgentGenes = moveEstimate.genes): DialogueTally {
  const key = JSON.stringify([user.behavior, user.persona.expertise, user.facts, genes]);
  const known = cache.get(key);
  if (known) return known;
  const outcomes: DialogueOutcome[] = estimateTasks().map((t) => playDialogue(t.env, user, genes, 1, t.id));
  const tally: DialogueTally = {
    served: outcomes.map((o) => o.told && o.waited),
    replies: outcomes.reduce((s, o) => s + o.replies, 0),
    disclosing: outcomes.reduce((s, o) => s + o.disclosing, 0),
    walked: outcomes.filter((o) => o.stop !== undefined).length,
    plays: outcomes.length,
  };
  cache.set(key, tally);
  return tally;
}

export interface MoveEstimate {
  /** Share of the dialogues the parent serves that the child does not (paired). */
  lostShare: number;
  /** Logit change of a pair at 0.5 whose success falls by that share: ln((2 - ratio) / ratio), ratio = child / parent served. */
  expectedEffect: number;
  /** The child's dialogues stay inside the realism indicator bounds, with the margin. */
  realistic: boolean;
}

/** The estimated effect of `child` against `parent` for an agent with `genes` (same tasks, same ids). */
export function estimateMove(parent: UserProfile, child: UserProfile, genes?: AgentGenes): MoveEstimate {
  const p = dialogueTally(parent, genes), c = dialogueTally(child, genes);
  const parentServed = p.served.filter(Boolean).length;
  const lost = c.served.filter((x, i) => p.served[i] && !x).length;
  const lostShare = parentServed === 0 ? 0 : lost / parentServed;
  const ratio = parentServed === 0 ? 1 : Math.max(0.05, c.served.filter(Boolean).length / parentServed);
  const b = realismIndicatorBounds, m = moveEstimate.realismMargin;
  const disclosure = c.replies ? c.disclosing / c.replies : 1;
  const realistic = disclosure >= b.disclosureRate[0] + m && c.walked / c.plays <= b.walkAwayShare[1] - m;
  return { lostShare, expectedEffect: Math.max(0, Math.log((2 - Math.min(1, ratio)) / Math.min(1, ratio))), realistic };
}
