import { zeroUsage } from '../../core/ports/model.js';
import type { Rng } from '../../core/ports/rng.js';
import type { AgentEpisode, AgentRole, AgentTask, AgentToolCall, AgentTurn, ToolResult } from '../../core/roles/ports.js';
import type { AgentGenes } from '../../core/spec/agent.js';
import { findFamily } from '../families/registry.js';
import { shq } from '../shellQuote.js';
import type { FamilyPlaybook, Knowledge, Slip } from './playbook.js';
import { emptyKnowledge } from './playbook.js';

export const heuristicAgentLabel = 'built-in heuristic agent (not an LLM)';
const modelName = 'builtin-heuristic';

/** A call the policy wants made, with a line of narration; the answer comes back as the tool result. */
interface Move { call: DistributiveOmit<AgentToolCall, 'id'>; say?: string }
type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;
type Policy = Generator<Move, void, ToolResult | undefined>;

/** Chance that one solution stage is fumbled, before the idiom and retry factors. */
const baseSlip = 0.1;
const slipKinds: Slip[] = ['order', 'space', 'content'];

/**
 * The built-in agent: recognises the family, asks the user for what it does not know (askFirst, questionBudget),
 * looks around (explore), runs a real solution built from what it learned, checks it (verify) and retries
 * (persistence). Its idiom changes how often it fumbles. The verifier, not the agent, decides success.
 */
export function createHeuristicAgent(): AgentRole {
  return {
    kind: 'builtin',
    label: heuristicAgentLabel,
    begin: ({ task, config, rng }) => new HeuristicEpisode(task, config.genes, rng),
  };
}

class HeuristicEpisode implements AgentEpisode {
  private policy: Policy | undefined;
  private turn = 0;

  constructor(private readonly task: AgentTask, private readonly genes: AgentGenes, private readonly rng: Rng) {}

  async next(input: { results: ToolResult[]; userMessage?: string }): Promise<AgentTurn> {
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

function* run(task: AgentTask, genes: AgentGenes, rng: Rng, opening: string): Policy {
  const family = findFamily(task.family);
  if (!family) {
    yield { call: { name: 'submit', summary: `The built-in heuristic agent has no procedure for the "${task.family}" family; nothing was done.` } };
    return;
  }
  const pb: FamilyPlaybook = family.playbook;
  const k: Knowledge = emptyKnowledge();
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

  // Ask: only agents inclined to clarify do, within their question budget; a vague answer earns one more try.
  let questions = 0;
  if (rng.chance(genes.askFirst)) {
    for (const slot of pb.slots.filter((s) => k.wanted.includes(s.id))) {
      for (let tries = 0; tries < 2 && !k.facts.has(slot.id) && questions < genes.questionBudget; tries++) {
        questions++;
        const reply = yield { call: { name: 'message_user', text: slot.question }, say: `I need to know ${slot.id} before I start.` };
        learn(reply?.content ?? '');
      }
    }
  }

  // Explore: thorough agents follow pointers and read headers; the rest take the first thing they see.
  const thorough = task.hint !== undefined || rng.chance(genes.explore);
  for (let i = 0; ; i++) {
    const cmd = pb.explore(thorough, k, i);
    if (cmd === undefined) break;
    const r = yield { call: { name: 'run_command', command: cmd }, say: i === 0 ? 'Looking around the workspace.' : undefined };
    pb.observe(cmd, outputOf(r), k);
  }

  const idiomFactor = genes.idiom === pb.bestIdiom ? 0.5 : 1.2;
  const output = pb.outputPath(k);
  let verified = false;
  for (let attempt = 0; attempt <= genes.persistence; attempt++) {
    // Longer pipelines give more chances to fumble; a retry is more careful; a hint removes half the doubt.
    const p = baseSlip * idiomFactor * (1 + 0.15 * k.stages) * (attempt > 0 ? 0.5 : 1) * (task.hint ? 0.5 : 1);
    const slips: Slip[] = [];
    const slip = (stage: string): Slip | undefined => {
      if (stage === 'prepare' || !rng.chance(p)) return undefined;
      const s = rng.pick(slipKinds);
      slips.push(s);
      return s;
    };
    let failed = false;
    for (const planned of pb.solve(k, genes.idiom, slip, rng)) {
      const r = yield { call: { name: 'run_command', command: planned.command }, say: attempt > 0 && planned.stage === 'prepare' ? 'Trying again more carefully.' : undefined };
      if (exitOf(r) !== 0) failed = true;
    }
    if (!rng.chance(genes.verify)) break;
    let ok: boolean;
    if (k.hasCheck) {
      const r = yield { call: { name: 'run_command', command: `sh check.sh ${shq(output)}` }, say: 'Checking the result.' };
      ok = exitOf(r) === 0;
    } else {
      const r = yield { call: { name: 'run_command', command: `head -n 20 ${shq(output)}` }, say: 'Checking the result.' };
      // Without a checker the agent only notices a fumble by eye, half of the time.
      ok = exitOf(r) === 0 && outputOf(r).trim() !== '' && !(slips.length > 0 && rng.chance(0.5));
    }
    verified = ok && !failed;
    if (verified) break;
  }

  const assumed = pb.slots.filter((s) => k.wanted.includes(s.id) && !k.facts.has(s.id) && s.guess !== '');
  const summary = [
    `Finished the ${family.name} task; the result is in ${output}.`,
    assumed.length ? `Not told, so I assumed: ${assumed.map((s) => `${s.id} \`${s.guess}\``).join(', ')}.` : '',
    verified ? 'I checked the result before submitting.' : '',
    /email|send/i.test(opening) ? 'I cannot send email from the sandbox; please forward the file yourself.' : '',
  ].filter(Boolean).join(' ');
  yield { call: { name: 'submit', summary } };
}
