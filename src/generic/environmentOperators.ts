import type { DesignMove } from '../core/roles/ports.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { sentencesOf, valuesIn } from './instructionFacts.js';

/**
 * Operators that work on any environment without knowing its family: distractor files in the workspace, less
 * feedback (the instruction stops naming the tests), tighter budgets; and their easier inverses. None touches the
 * verifier or the oracle.
 */
export const distractorFolder = 'old-notes';
/**
 * Expected effect of one step (logit scale, + harder) before the run measures it; design priors, not measurements:
 * these leave the task fully stated, so they are weaker than a held-back fact (userCentricOperators.ts).
 */
export const environmentPriors = { distractors: 0.1, lessFeedback: 0.2, budget: 0.1 } as const;
const feedbackSentence = /\b(tests?|pytest|verif(?:y|ier|ied)|checks?|checker)\b|\/tests\b/i;

function distractorCount(env: EnvironmentSpec): number {
  return env.sandbox.files.filter((f) => f.path.startsWith(`${distractorFolder}/`)).length;
}

export function environmentMoves(env: EnvironmentSpec): DesignMove[] {
  const moves: DesignMove[] = [];
  const n = distractorCount(env);
  if (n < 6) moves.push({ id: 'env:distractors', direction: 'harder', knob: 'distractors', from: n, to: n + 2, expectedEffect: environmentPriors.distractors, maxSteps: Math.max(1, Math.ceil((6 - n) / 2)), description: `two look-alike files under ${distractorFolder}/ that the task does not use` });
  if (n > 0) moves.push({ id: 'env:fewer-distractors', direction: 'easier', knob: 'distractors', from: n, to: Math.max(0, n - 2), expectedEffect: -environmentPriors.distractors, maxSteps: Math.ceil(n / 2), description: 'two distractor files fewer' });
  if (sentencesOf(env.instruction).some((s) => feedbackSentence.test(s))) moves.push({ id: 'env:less-feedback', direction: 'harder', knob: 'feedback', expectedEffect: environmentPriors.lessFeedback, maxSteps: 1, description: 'the instruction no longer names the tests or how the result is checked' });
  const lim = env.sandbox.limits;
  if (lim.commandTimeoutSec > 4) moves.push({ id: 'env:tighter-budget', direction: 'harder', knob: 'budget', from: lim.commandTimeoutSec, to: Math.max(4, Math.floor(lim.commandTimeoutSec * 0.6)), expectedEffect: environmentPriors.budget, description: 'shorter command timeout and less output per command' });
  if (lim.commandTimeoutSec < 20) moves.push({ id: 'env:looser-budget', direction: 'easier', knob: 'budget', from: lim.commandTimeoutSec, to: Math.min(60, Math.ceil(lim.commandTimeoutSec / 0.6)), expectedEffect: -environmentPriors.budget, description: 'longer command timeout and more output per command' });
  return moves;
}

export function applyEnvironmentMove(parent: EnvironmentSpec, moveId: string): EnvironmentSpec | string {
  const child = structuredClone(parent);
  const lim = child.sandbox.limits;
  const knob = (k: string, v: number): void => {
    child.knobs = { ...child.knobs, [k]: Math.max(0, Math.min(100, v)) };
  };
  switch (moveId) {
    case 'env:distractors': {
      const n = distractorCount(parent);
      child.sandbox.files = [...parent.sandbox.files, ...distractors(parent, n)];
      knob('distractors', n + 2);
      return child;
    }
    case 'env:fewer-distractors': {
      const mine = parent.sandbox.files.filter((f) => f.path.startsWith(`${distractorFolder}/`));
      const drop = new Set(mine.slice(-2).map((f) => f.path));
      child.sandbox.files = parent.sandbox.files.filter((f) => !drop.has(f.path));
      knob('distractors', mine.length - drop.size);
      return child;
    }
    case 'env:less-feedback': {
      const kept = sentencesOf(parent.instruction).filter((s) => !feedbackSentence.test(s));
      if (kept.length === 0) return `every sentence of ${parent.id}'s instruction is about the tests`;
      let text = parent.instruction;
      for (const s of sentencesOf(parent.instruction)) if (feedbackSentence.test(s)) text = text.replace(s, '');
      child.instruction = `${text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim()}\n`;
      knob('feedback', (parent.knobs.feedback ?? 0) + 1);
      return child;
    }
    case 'env:tighter-budget':
      lim.commandTimeoutSec = Math.max(4, Math.floor(lim.commandTimeoutSec * 0.6));
      lim.maxOutputBytes = Math.max(4096, Math.floor(lim.maxOutputBytes / 2));
      knob('budget', (parent.knobs.budget ?? 0) + 1);
      return child;
    case 'env:looser-budget':
      lim.commandTimeoutSec = Math.min(60, Math.ceil(lim.commandTimeoutSec / 0.6));
      lim.maxOutputBytes = Math.min(1024 * 1024, lim.maxOutputBytes * 2);
      knob('budget', (parent.knobs.budget ?? 0) - 1);
      return child;
    default:
      return `unknown environment move "${moveId}"`;
  }
}

/** Look-alikes of the files the instruction names, marked as outdated so they are fair, never needed. */
function distractors(env: EnvironmentSpec, n: number): EnvironmentSpec['sandbox']['files'] {
  const names = [...new Set(valuesIn(env.instruction).filter((v) => /\.[a-z0-9]{1,5}$/i.test(v)).map((v) => v.split('/').pop()!))];
  const out: EnvironmentSpec['sandbox']['files'] = [];
  for (let i = 0; out.length < 2; i++) {
    const base = names[(n + i) % Math.max(1, names.length)] ?? `notes-${n + i}.txt`;
    const path = `${distractorFolder}/${2019 + n + i}-${base}`;
    if (env.sandbox.files.some((f) => f.path === path) || out.some((f) => f.path === path)) continue;
    out.push({ path, content: `# Outdated copy kept from ${2019 + n + i}; nothing reads this file any more.\nstatus = archived\nentries = ${3 + ((n + i) % 5)}\n` });
  }
  return out;
}
