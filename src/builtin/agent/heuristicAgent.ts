import { zeroUsage } from '../../core/ports/model.js';
import type { Rng } from '../../core/ports/rng.js';
import type { AgentEpisode, AgentRole, AgentTask, AgentToolCall, AgentTurn, ToolResult } from '../../core/roles/ports.js';
import type { AgentGenes } from '../../core/spec/agent.js';
import { findFamily } from '../families/registry.js';
import { shq } from '../shellQuote.js';
import type { FamilyPlaybook, Knowledge, Slip, StageDef } from './playbook.js';
import { emptyKnowledge } from './playbook.js';

export const heuristicAgentLabel = 'built-in heuristic agent (not an LLM)';

/** What the agent says at its key steps; the built-in agent evolver reads its traces by these (agentDiagnosis.ts). */
export const agentNarration = { solve: 'Running my solution.', retry: 'Trying again more carefully.', check: 'Checking the result.', assumed: 'Not told, so I assumed:', checked: 'I checked the result before submitting.' } as const;
const modelName = 'builtin-heuristic';

/** A call the policy wants made, with a line of narration; the answer comes back as the tool result. */
interface Move { call: DistributiveOmit<AgentToolCall, 'id'>; say?: string }
type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;
type Policy = Generator<Move, void, ToolResult | undefined>;

/**
 * How careless the agent is. A stage that can go wrong in every way slips with `baseSlip` x the idiom factor: a
 * wrong value, a misplaced line or stray whitespace, in proportion to the weights below (a stage that can only go
 * wrong one way slips at that kind's share of the rate). Half the slips are misunderstandings that come back on
 * a retry unless a verbose check named the problem (or the agent saw it in its output). Calibrated with
 * `npm run bench:calibration`.
 */
export const carelessness = {
  baseSlip: 0.35,
  idiomFactor: { best: 0.15, other: 1.2 },
  slipWeights: { content: 1, order: 3, space: 1 } as Record<Slip, number>,
  persistentShare: 0.5,
  retryFactor: 0.5,
  hintFactor: 0.5,
  /** Chance that a look at the output (no check.sh) reveals a defect of each kind, for the most careful agent (verify 1). */
  eye: { order: 0.5, content: 0.3, space: 0.3 } as Record<Slip, number>,
  /**
   * Chance that a look at a decoy tells it for one (a hint play tells them all). Below 1 a decoy costs even the agent
   * that looks at everything, so the distractors knob still bites the agents selection finds (bench/HISTORY.md).
   */
  spot: 0.9,
};

/**
 * The built-in agent. Every decision is a draw from its own named stream (ask/<fact>, look/<file>,
 * slip/<attempt>/<stage>, ...), so two tasks that differ by one change are played with the same decisions elsewhere.
 * - asks about each point it does not know with probability askFirst, within questionBudget messages (when the
 *   points outnumber the messages, the last one asks about all that remain), and asks once more after a vague answer;
 * - lists the workspace and looks at each candidate input with probability explore; a candidate it did not look at,
 *   or a decoy it looked at and took for the real thing (carelessness.spot), is used as an input;
 * - runs its solution (every stage may slip), checks it (check.sh when the instruction offers one, else a look at the
 *   output) with probability verify (higher when the instruction asks for the check), and retries up to persistence.
 * The verifier, not the agent, decides success.
 */
export function createHeuristicAgent(): AgentRole {
  return {
    kind: 'builtin',
    label: heuristicAgentLabel,
    begin: ({ task, config, rng }) => {
      const e = new HeuristicEpisode(task, config.genes, rng);
      return { next: async (input) => e.next(input) } satisfies AgentEpisode;
    },
  };
}

/** The heuristic agent's episode with synchronous turns (it needs no model): what the dialogue-only plays drive. */
export function beginHeuristicAgent(task: AgentTask, genes: AgentGenes, rng: Rng): { next(input: { results: ToolResult[]; userMessage?: string }): AgentTurn } {
  return new HeuristicEpisode(task, genes, rng);
}

class HeuristicEpisode {
  private policy: Policy | undefined;
  private turn = 0;

  constructor(private readonly task: AgentTask, private readonly genes: AgentGenes, private readonly rng: Rng) {}

  next(input: { results: ToolResult[]; userMessage?: string }): AgentTurn {
    let step: IteratorResult<Move, void>;
    if (!this.policy) {
      this.policy = run(this.task, this.genes, this.rng, input.userMessage ?? '');
      step = this.policy.next(undefined);
    } else {
      step = this.policy.next(input.results[0]);
    }
    this.turn++;
    const move: Move = step.done ? { call: { name: 'submit', summary: 'Nothing more to do.' } } : step.value;
    return { message: move.say ?? null, calls: [{ ...move.call, id: `call_${this.turn}` } as AgentToolCall], usage: zeroUsage(), modelName };
  }
}

/** Output of a run_command result without the engine's "exit code N" header; stderr is left out. */
function outputOf(r: ToolResult | undefined): string {
  const text = r?.content ?? '';
  const body = text.startsWith('exit code') ? text.slice(text.indexOf('\n') + 1) : text;
  return body.split('\n[stderr]\n')[0] ?? '';
}

function exitOf(r: ToolResult | undefined): number {
  if (r?.command) return r.command.exitCode;
  const m = /^exit code (\d+)/.exec(r?.content ?? '');
  return m ? Number(m[1]) : 0;
}

interface Episode { task: AgentTask; genes: AgentGenes; rng: Rng; pb: FamilyPlaybook; k: Knowledge; learn(text: string): void }

function* run(task: AgentTask, genes: AgentGenes, rng: Rng, opening: string): Policy {
  const family = findFamily(task.family);
  if (!family) {
    yield { call: { name: 'submit', summary: `The built-in heuristic agent has no procedure for the "${task.family}" family; nothing was done.` } };
    return;
  }
  const pb = family.playbook;
  const k = emptyKnowledge();
  pb.readInstruction(task.instruction, k);
  const learn = (text: string): void => {
    for (const slot of pb.slots) {
      const v = slot.parse(text);
      if (v !== undefined && k.wanted.includes(slot.id)) k.facts.set(slot.id, v);
    }
  };
  learn(task.instruction);
  learn(opening);
  if (task.hint) learn(task.hint);
  const ep: Episode = { task, genes, rng, pb, k, learn };

  yield* ask(ep);
  yield* explore(ep);
  const verified = yield* solveAndCheck(ep);

  const assumed = pb.slots.filter((s) => k.wanted.includes(s.id) && !k.facts.has(s.id) && s.guess !== '');
  const summary = [
    `Finished the ${family.name} task; the result is in ${pb.outputPath(k)}.`,
    assumed.length ? `${agentNarration.assumed} ${assumed.map((s) => `${s.id} \`${s.guess}\``).join(', ')}.` : '',
    verified ? agentNarration.checked : '',
    /email|send/i.test(opening) ? 'I cannot send email from the sandbox; please forward the file yourself.' : '',
  ].filter(Boolean).join(' ');
  yield { call: { name: 'submit', summary } };
}

/** Questions: one point per message, the last message asks about every point left; a vague answer is asked again once. */
function* ask({ genes, rng, pb, k, learn }: Episode): Policy {
  const queue = pb.slots.filter((s) => k.wanted.includes(s.id) && !k.facts.has(s.id) && rng.fork(`ask/${s.id}`).chance(genes.askFirst));
  const retried = new Set<string>();
  for (let sent = 0; queue.length > 0 && sent < genes.questionBudget; sent++) {
    const batch = sent === genes.questionBudget - 1 ? queue.splice(0) : queue.splice(0, 1);
    const reply = yield { call: { name: 'message_user', text: batch.map((s) => s.question).join(' ') }, say: `I need to know ${batch.map((s) => s.id).join(' and ')} before I start.` };
    learn(reply?.content ?? '');
    const again = batch.filter((s) => !k.facts.has(s.id) && !retried.has(s.id));
    for (const s of again) retried.add(s.id);
    queue.unshift(...again);
  }
}

/** A listing, then a look at each candidate with probability explore (all of them in a hint play). */
function* explore({ task, genes, rng, pb, k }: Episode): Policy {
  const listing = yield { call: { name: 'run_command', command: pb.survey }, say: 'Looking around the workspace.' };
  for (const path of pb.candidates(outputOf(listing))) {
    if (task.hint !== undefined || rng.fork(`look/${path}`).chance(genes.explore)) {
      const r = yield { call: { name: 'run_command', command: pb.inspect(path) } };
      const decoy = pb.observeInspect(path, outputOf(r), k) === 'decoy';
      if (decoy && (task.hint !== undefined || rng.fork(`spot/${path}`).chance(carelessness.spot))) continue;
    }
    k.inputs.push(path);
  }
}

interface Fumble { kind: Slip; persistent: boolean }

const allWeights = Object.values(carelessness.slipWeights).reduce((a, b) => a + b, 0);

/** Which stages slip on this attempt: misunderstandings carried from the last attempt recur, the rest are drawn afresh. */
function drawSlips(ep: Episode, stages: StageDef[], attempt: number, carried: Map<string, Fumble>): Map<string, Fumble> {
  const c = carelessness;
  const p = c.baseSlip * (ep.genes.idiom === ep.pb.bestIdiom ? c.idiomFactor.best : c.idiomFactor.other) * (ep.task.hint ? c.hintFactor : 1) * (attempt > 0 ? c.retryFactor : 1);
  const out = new Map<string, Fumble>();
  for (const stage of stages) {
    const again = carried.get(stage.name);
    if (again) { out.set(stage.name, again); continue; }
    // Each kind of defect has its own rate, so a stage that can only go wrong one way slips less often.
    const r = ep.rng.fork(`slip/${attempt}/${stage.name}`);
    const total = stage.slips.reduce((s, k) => s + c.slipWeights[k], 0);
    if (total === 0 || !r.chance((p * total) / allWeights)) continue;
    let x = r.next() * total;
    const kind = stage.slips.find((k) => (x -= c.slipWeights[k]) < 0) ?? (stage.slips[0] as Slip);
    out.set(stage.name, { kind, persistent: r.chance(c.persistentShare) });
  }
  return out;
}

/** Attempts: run the solution as one script, check it (maybe), retry up to persistence. True when a check passed. */
function* solveAndCheck(ep: Episode): Generator<Move, boolean, ToolResult | undefined> {
  const { genes, rng, pb, k } = ep;
  const output = pb.outputPath(k);
  let carried = new Map<string, Fumble>();
  for (let attempt = 0; attempt <= genes.persistence; attempt++) {
    const slips = drawSlips(ep, pb.stages(k), attempt, carried);
    const script = pb.solve(k, genes.idiom, (stage) => slips.get(stage)?.kind).map((c) => c.command).join('\n');
    const ran = yield { call: { name: 'run_command', command: script }, say: attempt > 0 ? agentNarration.retry : agentNarration.solve };
    const failed = exitOf(ran) !== 0;
    // An instruction that asks for the check makes the agent more likely to run it.
    if (!rng.fork(`verify/${attempt}`).chance(k.hasCheck ? (1 + genes.verify) / 2 : genes.verify)) return false;
    let named = false;
    let ok: boolean;
    if (k.hasCheck) {
      const r = yield { call: { name: 'run_command', command: `sh check.sh ${shq(output)}` }, say: agentNarration.check };
      ok = exitOf(r) === 0 && !failed;
      named = !ok && /^problem:/m.test(outputOf(r));
    } else {
      const r = yield { call: { name: 'run_command', command: `head -n 20 ${shq(output)}` }, say: agentNarration.check };
      // A defect seen with one's own eyes is one the agent knows how to fix.
      const noticed = [...slips].some(([stage, s]) => rng.fork(`eye/${attempt}/${stage}`).chance(carelessness.eye[s.kind] * genes.verify));
      ok = exitOf(r) === 0 && outputOf(r).trim() !== '' && !noticed && !failed;
      named = noticed;
    }
    if (ok) return true;
    carried = named ? new Map() : new Map([...slips].filter(([, s]) => s.persistent));
  }
  return false;
}
