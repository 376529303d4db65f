import type { DesignMove } from '../core/roles/ports.js';
import type { EnvironmentSpec, HiddenFact } from '../core/spec/environment.js';
import { asUserStatement, instructionFacts, sentencesOf, valuesIn, type InstructionFact } from './instructionFacts.js';

/**
 * The user-centric operators: they change what the agent is told and what only the simulated user knows, never
 * the verifier, the oracle or the sandbox, so a parent that validates keeps validating.
 *
 * - hold-back: a fact's sentence leaves the instruction (and the opening request) and becomes a hidden fact the
 *   user discloses when asked about its topic; the agent has to ask.
 * - vaguer request: the opening request is cut to its first sentence with its values replaced by vague words.
 * - mistaken statement: for a held-back fact, the user's opening states a wrong value; asking (or asking to confirm)
 *   gets the right one.
 * - disclose (easier): a held-back fact goes back into the instruction.
 */
export const heldFactPrefix = 'held-';

/**
 * Expected effect of one step on difficulty (logit scale, + harder), the controller's starting point before the run
 * measures the move. Design priors, not measurements: a held-back value is one an agent can only ask for or guess,
 * so it is the strongest move; a mistaken statement costs only an agent that does not double-check; a vaguer opening
 * leaves the instruction whole.
 */
export const userCentricPriors = { holdBack: 1, vaguerRequest: 0.2, mistakenStatement: 0.5, disclose: -1 } as const;
const confirmWords = ['sure', 'confirm', 'correct', 'double-check'];

/** Hidden facts that operators moved out of the instruction. */
export function heldBackFacts(env: EnvironmentSpec): HiddenFact[] {
  return env.user.facts.filter((f) => f.id.startsWith(heldFactPrefix));
}

/** The backticked values of a fact's statement. */
export function factValues(f: HiddenFact): string[] {
  return [...f.text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

function removeSentence(text: string, sentence: string): string {
  const at = text.indexOf(sentence);
  if (at < 0) return text;
  return `${text.slice(0, at)}${text.slice(at + sentence.length)}`.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').replace(/ {2,}/g, ' ').trim() + '\n';
}

/** Facts still in the instruction that can be held back. */
export function movableFacts(env: EnvironmentSpec): InstructionFact[] {
  const held = new Set(heldBackFacts(env).map((f) => f.id));
  return instructionFacts(env).filter((f) => !held.has(`${heldFactPrefix}${f.id}`));
}

export function userCentricMoves(env: EnvironmentSpec): DesignMove[] {
  const moves: DesignMove[] = [];
  for (const f of movableFacts(env)) {
    moves.push({ id: `user:hold-back:${f.id}`, direction: 'harder', knob: 'heldBack', expectedEffect: userCentricPriors.holdBack, maxSteps: 1, description: `the user, not the instruction, knows: ${f.sentence.slice(0, 120)}` });
  }
  const request = env.user.request.trim();
  if (sentencesOf(request).length > 1 || valuesIn(request).length > 0) {
    moves.push({ id: 'user:vaguer-request', direction: 'harder', knob: 'ambiguity', expectedEffect: userCentricPriors.vaguerRequest, maxSteps: 1, description: 'the opening request keeps only its first sentence, without concrete values' });
  }
  for (const f of heldBackFacts(env)) {
    if (!env.user.request.includes(`\`${mistaken(factValues(f)[0] ?? '')}\``) && factValues(f).length > 0) {
      moves.push({ id: `user:mistaken-statement:${f.id}`, direction: 'harder', knob: 'mistakes', expectedEffect: userCentricPriors.mistakenStatement, maxSteps: 1, description: `the user first states a wrong value for ${f.id}, correctable by asking` });
    }
    moves.push({ id: `user:disclose:${f.id}`, direction: 'easier', knob: 'heldBack', expectedEffect: userCentricPriors.disclose, maxSteps: 1, description: `the instruction states ${f.id} again` });
  }
  return moves;
}

/** The child of one user-centric move, or why it cannot be made. */
export function applyUserCentric(parent: EnvironmentSpec, moveId: string): EnvironmentSpec | string {
  const [, kind, arg] = /^user:([a-z-]+)(?::(.+))?$/.exec(moveId) ?? [];
  const child = structuredClone(parent);
  const bump = (knob: string, by: number): void => {
    child.knobs = { ...child.knobs, [knob]: Math.max(0, Math.min(100, (child.knobs[knob] ?? 0) + by)) };
  };
  switch (kind) {
    case 'hold-back': {
      const fact = movableFacts(parent).find((f) => f.id === arg);
      if (!fact) return `no fact ${arg} left in the instruction of ${parent.id}`;
      child.instruction = removeSentence(parent.instruction, fact.sentence);
      if (!child.instruction.trim()) return `holding back ${arg} would leave ${parent.id} without an instruction`;
      child.user.request = scrubRequest(parent.user.request, fact);
      const id = `${heldFactPrefix}${fact.id}`;
      child.user.facts = [...parent.user.facts, { id, text: asUserStatement(fact), keywords: [...fact.keywords, ...confirmWords] }];
      child.user.requiredFacts = [...parent.user.requiredFacts, id];
      bump('heldBack', 1);
      return child;
    }
    case 'vaguer-request': {
      const first = sentencesOf(parent.user.request)[0] ?? parent.user.request;
      let vague = first;
      for (const v of valuesIn(first).sort((a, b) => b.length - a.length)) vague = vague.split(v).join(vagueWord(v));
      if (vague.trim() === parent.user.request.trim()) return `the request of ${parent.id} is already as vague as it gets`;
      child.user.request = vague.replace(/`/g, '');
      bump('ambiguity', 1);
      return child;
    }
    case 'mistaken-statement': {
      const fact = heldBackFacts(parent).find((f) => f.id === arg);
      const value = fact ? factValues(fact)[0] : undefined;
      if (!fact || value === undefined) return `no held-back fact ${arg} with a value in ${parent.id}`;
      const wrong = mistaken(value);
      child.user.request = `${parent.user.request.trim()} ${fact.text.split(`\`${value}\``).join(`\`${wrong}\``)}`;
      bump('mistakes', 1);
      return child;
    }
    case 'disclose': {
      const fact = heldBackFacts(parent).find((f) => f.id === arg);
      if (!fact) return `no held-back fact ${arg} in ${parent.id}`;
      child.instruction = `${parent.instruction.trimEnd()}\n${fact.text.replace(/`/g, '')}\n`;
      child.user.facts = parent.user.facts.filter((f) => f.id !== fact.id);
      child.user.requiredFacts = parent.user.requiredFacts.filter((id) => id !== fact.id);
      for (const v of factValues(fact)) {
        const w = `\`${mistaken(v)}\``;
        if (child.user.request.includes(w)) child.user.request = child.user.request.split(w).join(`\`${v}\``);
      }
      bump('heldBack', -1);
      return child;
    }
    default:
      return `unknown user-centric move "${moveId}"`;
  }
}

/** The request without the held-back sentence and without its values. */
function scrubRequest(request: string, fact: InstructionFact): string {
  let r = request.includes(fact.sentence) ? removeSentence(request, fact.sentence) : request;
  for (const v of fact.values) r = r.split(v).join(vagueWord(v));
  return r.trim() || 'Can you help me with a task?';
}

function vagueWord(v: string): string {
  if (/\//.test(v) || /\.[a-z0-9]{1,5}$/.test(v)) return 'the file';
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'that day';
  if (/^\d/.test(v)) return 'the number';
  return 'the usual one';
}

/** A plausible wrong value of the same shape: a near-miss file name, a number off by one, a changed word. */
export function mistaken(v: string): string {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (date) return `${date[1]}-${date[2]}-${String(Math.min(28, Number(date[3]) + 1)).padStart(2, '0')}`;
  if (/^\d+$/.test(v)) return String(Number(v) + 1);
  const file = /^(.*?)([^/]+?)(\.[a-z0-9]{1,5})?$/i.exec(v);
  if (file && file[2]) {
    const stem = file[2];
    const next = stem.endsWith('s') ? stem.slice(0, -1) : `${stem}s`;
    return `${file[1]}${next}${file[3] ?? ''}`;
  }
  return `${v}s`;
}
