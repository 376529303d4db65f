import { zeroUsage } from '../core/ports/model.js';
import type { Rng } from '../core/ports/rng.js';
import type { OracleUnknown, OracleView } from '../core/roles/oracleView.js';
import type { AgentEpisode, AgentRole, AgentTask, AgentToolCall, AgentTurn, ToolResult } from '../core/roles/ports.js';
import type { AgentGenes } from '../core/spec/agent.js';

export const oracleAgentLabel = 'built-in oracle agent (not an LLM: it replays the task\'s reference solution and must ask the user for the values held back from it)';
const modelName = 'builtin-oracle';

type Move = { call: { name: 'run_command'; command: string } | { name: 'message_user'; text: string } | { name: 'submit'; summary: string }; say?: string };
type Policy = Generator<Move, void, ToolResult | undefined>;

/**
 * The offline player of imported tasks. It knows the oracle (with the held-back values masked) but not the facts the
 * operators moved to the user. Its genes set how it gets them: `askFirst` is the chance it asks at all,
 * `questionBudget` how many questions it asks, `persistence` how often it asks again after an unclear answer, and
 * `verify` the chance it double-checks a value the user volunteered (which catches a mistaken statement). A value
 * it never learns is guessed, and the verifier decides. It is not an LLM, and says so in its label.
 */
export function createOracleAgent(): AgentRole {
  return {
    kind: 'builtin',
    label: oracleAgentLabel,
    knowsOracle: true,
    begin: ({ task, config, rng }) => new OracleEpisode(task, config.genes, rng),
  };
}

class OracleEpisode implements AgentEpisode {
  private policy: Policy | undefined;
  private turn = 0;

  constructor(private readonly task: AgentTask, private readonly genes: AgentGenes, private readonly rng: Rng) {}

  async next(input: { results: ToolResult[]; userMessage?: string }): Promise<AgentTurn> {
    let step: IteratorResult<Move, void>;
    if (!this.policy) {
      this.policy = play(this.task.oracle, this.genes, this.rng, input.userMessage ?? '');
      step = this.policy.next(undefined);
    } else {
      step = this.policy.next(input.results[0]);
    }
    this.turn++;
    const move: Move = step.done ? { call: { name: 'submit', summary: 'Done.' } } : step.value;
    return { message: move.say ?? null, calls: [{ ...move.call, id: `call_${this.turn}` } as AgentToolCall], usage: zeroUsage(), modelName };
  }
}

/** Backticked values of a message that have the shape of the unknown. */
function valuesFor(text: string, u: OracleUnknown): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).filter((v) => shape(v) === u.shape);
}

function shape(v: string): OracleUnknown['shape'] {
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'date';
  if (/^\d+(\.\d+)?$/.test(v)) return 'number';
  if (/\//.test(v) || /\.[a-z0-9]{1,5}$/i.test(v)) return 'path';
  return 'word';
}

/** A sentence of the opening that is about this unknown: it names one of its topic words and a value of its shape. */
function volunteered(opening: string, u: OracleUnknown): string | undefined {
  for (const sentence of opening.split(/(?<=[.!?])\s+/)) {
    const lower = sentence.toLowerCase();
    if (!u.keywords.some((k) => lower.includes(k.toLowerCase()))) continue;
    const v = valuesFor(sentence, u)[0];
    if (v !== undefined) return v;
  }
  return undefined;
}

function question(u: OracleUnknown, confirm?: string): string {
  const topic = u.keywords.filter((k) => !['sure', 'confirm', 'correct', 'double-check'].includes(k)).slice(0, 3).join(' / ');
  return confirm !== undefined
    ? `Just to confirm, are you sure about \`${confirm}\` for the ${topic}? Please give me the exact value.`
    : `Before I start: what exactly should I use for the ${topic}? Please give me the exact value.`;
}

const guesses: Record<OracleUnknown['shape'], string> = { path: 'output.txt', number: '0', date: '1970-01-01', word: 'default' };

function* play(view: OracleView | undefined, genes: AgentGenes, rng: Rng, opening: string): Policy {
  if (!view) {
    yield { call: { name: 'submit', summary: 'The built-in oracle agent was given no reference solution for this task; nothing was done.' } };
    return;
  }
  const known = new Map<string, string>();
  const asks = rng.chance(genes.askFirst);
  let questions = 0;
  for (const u of view.unknowns) {
    const fromUser = volunteered(opening, u);
    if (fromUser !== undefined && !rng.chance(genes.verify)) {
      known.set(u.placeholder, fromUser);
      continue;
    }
    if (fromUser === undefined && !asks) continue;
    for (let tries = 0; tries <= genes.persistence && !known.has(u.placeholder) && questions < genes.questionBudget; tries++) {
      questions++;
      const reply = yield { call: { name: 'message_user', text: question(u, tries === 0 ? fromUser : undefined) }, say: 'I need one detail from you.' };
      const value = valuesFor(reply?.content ?? '', u)[0];
      if (value !== undefined) known.set(u.placeholder, value);
    }
    if (!known.has(u.placeholder) && fromUser !== undefined) known.set(u.placeholder, fromUser);
  }
  let script = view.script;
  const guessed: string[] = [];
  for (const u of view.unknowns) {
    const v = known.get(u.placeholder) ?? guesses[u.shape];
    if (!known.has(u.placeholder)) guessed.push(u.factId);
    script = script.split(u.placeholder).join(v);
  }
  yield { call: { name: 'run_command', command: script }, say: 'Running the solution.' };
  yield { call: { name: 'submit', summary: guessed.length > 0 ? `Done; I had to guess ${guessed.join(', ')}.` : 'Done.' } };
}

/**
 * One agent role for mixed populations: the family's own built-in agent where there is one, the oracle agent for
 * every other (imported) environment.
 */
export function agentForAnyEnvironment(builtin: AgentRole, oracle: AgentRole, isBuiltinFamily: (family: string) => boolean): AgentRole {
  return {
    kind: 'builtin',
    label: `${builtin.label} for built-in families; ${oracle.label} for other tasks`,
    knowsOracle: true,
    begin: (input) => {
      if (isBuiltinFamily(input.task.family)) {
        const { oracle: _hidden, ...task } = input.task;
        return builtin.begin({ ...input, task });
      }
      return oracle.begin(input);
    },
  };
}
