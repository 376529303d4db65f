// Human names for runs, environments, users and pairs, shared by the trees, the panels and the CLI, so every
// surface calls a thing the same way. Ids stay one click (or one tooltip) away; these never replace them in data.
import { fixed } from './render/figures.js';

export interface RunNameInput {
  name: string;
  runId: string;
  startedAt: string;
}

/** "demo · 12-01 09:19": the config's name and when it started (runs of one config share the name). */
export function runLabel(run: RunNameInput): string {
  const t = run.startedAt.replace('T', ' ');
  return `${run.name} · ${t.slice(5, 16)}`;
}

/** The run label with its id, for titles where two runs of the same minute must still differ. */
export function runTitle(run: RunNameInput): string {
  return `${runLabel(run)} (${run.runId})`;
}

/** "upfront-planner-u0c4c1ac0" → "upfront planner": the archetype a user id was derived from. */
export function archetypeOf(userId: string): string {
  return userId.replace(/-u[0-9a-f]{6,}$/, '').replace(/[-_]+/g, ' ');
}

export interface LineageInput {
  parent: string | null;
  operator: string | null;
  generation: number;
}

/** "harder:less_disclosure" → "harder: less disclosure". */
export function operatorLabel(operator: string): string {
  return operator.replace(/_/g, ' ').replace(/:/, ': ');
}

const childNote = (l: LineageInput | undefined): string => (l?.parent && l.operator ? ` · g${l.generation} ${operatorLabel(l.operator)}` : '');

/** An environment's title, and for an evolved one the generation and operator that made it. */
export function environmentName(env: { title?: string; lineage?: LineageInput } | undefined, id: string): string {
  if (!env?.title) return id;
  return `${env.title}${childNote(env.lineage)}`;
}

/** "Robin (upfront planner)", and for an evolved user the generation and operator. */
export function userName(user: { persona?: { name: string }; lineage?: LineageInput } | undefined, id: string): string {
  const archetype = archetypeOf(id);
  if (!user?.persona) return archetype;
  return `${user.persona.name} (${archetype})${childNote(user.lineage)}`;
}

/**
 * A rollout's editor tab, short enough to tell open rollouts apart: "g1 Log triage × Sam #2" (the generation, the
 * task's title up to its colon, the user's name, the play; "hint" for the hint play). The full names are in the
 * page's header; without its specs (still running, or unreadable) the tab keeps the rollout's id.
 */
export function rolloutTabTitle(
  r: { generation: number; rolloutId: string; trial?: number; hint?: boolean },
  env: { title?: string } | undefined,
  user: { persona?: { name: string } } | undefined,
  userId: string | undefined,
): string {
  const task = env?.title?.split(':')[0]?.trim();
  if (!task) return r.rolloutId;
  const who = user?.persona?.name ?? (userId ? archetypeOf(userId) : undefined);
  const play = r.hint ? 'hint' : r.trial !== undefined ? `#${r.trial}` : '';
  return [`g${r.generation}`, `${task.length > 28 ? `${task.slice(0, 27).trimEnd()}…` : task}${who ? ` × ${who}` : ''}`, play].filter(Boolean).join(' ');
}

/** A tag as people read it ("verified before submit"); the tag itself stays in the data, filters and tooltips. */
export const tagLabel = (tag: string): string => tag.replace(/_/g, ' ');

/** "3/4 passed (75 %)": a pair's success with its counts, never a bare p. */
export function successLabel(successes: number, plays: number): string {
  if (plays === 0) return 'not played';
  return `${successes}/${plays} passed (${Math.round((100 * successes) / plays)} %)`;
}

/**
 * One numbering everywhere: a generation is called by its index in the run directory (g0000 is "generation 0"),
 * and progress through the run is said as a count beside it: "generation 2 (3 of 5)".
 */
export function generationLabel(index: number, total?: number): string {
  return total === undefined ? `generation ${index}` : `generation ${index} (${index + 1} of ${total})`;
}

/**
 * The two difficulty scales, said the same way on every surface (ARCHITECTURE.md, metric definitions): the design
 * level is a label the spec carries, the measured difficulty is fitted from outcomes. Short forms go in tree rows
 * and CLI lines; these sentences go in tooltips and keys.
 */
export const difficultyScales = {
  design: 'design level: the spec\'s own difficulty label (0–100; built-in families use levels 1–5), set by its knobs, not measured',
  measured: 'measured difficulty: fitted from outcomes (Rasch model), in logits; 0 is the mean of the seed environments and users; a pair as difficult as the agent is able is solved half the time, one logit harder about 27 % of the time',
} as const;

/** "design level 2.7": a design difficulty with the name of its scale (a mean with `digits` decimals, a spec's own as written). */
export function designLevelLabel(level: number, digits?: number): string {
  return `design level ${digits !== undefined ? level.toFixed(digits) : Number.isInteger(level) ? String(level) : level.toFixed(1)}`;
}

/** "measured 0.42 logits" (with "± se" when given): a fitted difficulty with its unit. */
export function measuredLabel(value: number, se?: number): string {
  return `measured ${fixed(value, 2)}${se === undefined ? '' : ` ± ${se.toFixed(2)}`} logits`;
}

/** A child's aim in a few words, "aimed 48 % · screened 3/4", and in a sentence for its tooltip. */
export function aimLabel(aim: { predicted: number; screening?: { successes: number; trials: number } }): { text: string; title: string } {
  const aimed = Math.round(aim.predicted * 100);
  const s = aim.screening;
  return {
    text: `aimed ${aimed} %${s ? ` · screened ${s.successes}/${s.trials}` : ''}`,
    title: `When this child was planned, the fitted model predicted ${aimed} % success for the agent it was made for${s ? `; its ${s.trials} screening plays before admission passed ${s.successes}` : ''}.`,
  };
}

const truncations: Record<string, { words: string; why: string }> = {
  turns: { words: 'turn budget', why: "the agent used every turn of the run's budget (budgets.turns)" },
  tokens: { words: 'token budget', why: "the rollout used the run's token budget (budgets.tokens)" },
  wall_clock: { words: 'wall clock', why: "the run's wall clock per rollout (budgets.wallClockSec) ran out during the agent's episode; runs recorded before 2026-12-07 also record the environment's agent timeout this way" },
  agent_timeout: { words: 'agent timeout', why: "the environment's own agent timeout (sandbox.limits.agentTimeoutSec, Harbor's [agent] timeout_sec) ended the agent's turns; the verifier judged what it left" },
  context: { words: 'context window', why: "the conversation could not fit the model's context window" },
};

/**
 * What ended a truncated rollout, "truncated: agent timeout", with the record's reason and what it means for the
 * tooltip: the run's wall clock and the environment's agent timeout read apart. A reason this version does not know
 * (a newer writer's) is shown as written.
 */
export function truncationLabel(reason: string | undefined): { text: string; title: string } {
  const known = reason !== undefined && Object.hasOwn(truncations, reason) ? truncations[reason] : undefined;
  if (!known) return { text: `truncated${reason ? `: ${reason}` : ''}`, title: reason ? `truncation reason "${reason}"` : 'no truncation reason recorded' };
  return { text: `truncated: ${known.words}`, title: `${reason}: ${known.why}` };
}

/** The three classes the controller puts a pair in, in words. */
export const pairClassLabel: Record<string, string> = {
  too_easy: 'too easy',
  frontier: 'frontier',
  too_hard: 'too hard',
};
