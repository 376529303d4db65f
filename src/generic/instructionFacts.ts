import type { EnvironmentSpec } from '../core/spec/environment.js';

/**
 * A fact of an instruction: one sentence that carries a concrete value (a path, a number, a name) the solution
 * needs, i.e. the value also appears in the oracle or the tests. These are what user-centric operators can move
 * from the instruction to the simulated user.
 */
export interface InstructionFact {
  /** Stable within the instruction: "f" + index of the sentence. */
  id: string;
  sentence: string;
  /** The values the solution needs, as they appear in the sentence. */
  values: string[];
  /** Words a question about this fact would use (the topic, never the value). */
  keywords: string[];
}

const stopWords = new Set('the a an and or of to in on at for from with by is are be it its this that these those as into every each all any only one two three your you their there then than which who whose when what where how not no nor but if so do does did has have had was were will would can could should must may might also just very same other others more most less least such own out up down over under again once here about after before both few some them they we our us me my his her he she'.split(' '));

/** Values in a sentence: backticked spans, absolute or dotted paths, quoted strings, numbers, UPPERCASE words, KEY=VALUE pairs. */
export function valuesIn(sentence: string): string[] {
  const found: string[] = [];
  const add = (v: string | undefined): void => {
    const t = v?.trim().replace(/[.,;:]+$/, '');
    if (t && t.length >= 2 && !found.includes(t)) found.push(t);
  };
  for (const m of sentence.matchAll(/`([^`\n]+)`/g)) add(m[1]);
  for (const m of sentence.matchAll(/"([^"\n]{1,80})"/g)) add(m[1]);
  for (const m of sentence.matchAll(/(?:^|[\s(])((?:\/[\w.@-]+)+\/?|[\w-]+(?:\/[\w.-]+)+|[\w-]+\.[a-z][a-z0-9]{0,4})(?=$|[\s),;:]|\.\s|\.$)/gim)) add(m[1]);
  for (const m of sentence.matchAll(/\b([A-Z][A-Z0-9_]*=[^\s,]+)/g)) add(m[1]);
  for (const m of sentence.matchAll(/\b(\d{4}-\d{2}-\d{2}|\d+(?:\.\d+)?)\b/g)) add(m[1]);
  for (const m of sentence.matchAll(/\b([A-Z]{3,}[A-Z0-9_]*)\b/g)) add(m[1]);
  for (const m of sentence.matchAll(/\b([a-z]+(?:[._-][a-z0-9]+)+)\b/g)) add(m[1]);
  // A value inside another one (the "app" of "/app/x") adds nothing.
  return found.filter((v) => !found.some((o) => o !== v && o.includes(v) && !/^\d+$/.test(o)));
}

/** Sentences and list items of an instruction, in order; headings are not sentences. */
export function sentencesOf(instruction: string): string[] {
  const out: string[] = [];
  for (const block of instruction.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => !/^\s*#/.test(l) && !/^\s*<!--.*-->\s*$/.test(l));
    const text = lines.join('\n').trim();
    if (!text) continue;
    if (lines.some((l) => /^\s*([-*]|\d+\.)\s+/.test(l))) {
      for (const l of lines) if (l.trim()) out.push(l.trim());
      continue;
    }
    for (const s of text.replace(/\n/g, ' ').split(/(?<=[.!?])\s+(?=[A-Z`"/(])/)) if (s.trim()) out.push(s.trim());
  }
  return out;
}

function keywordsOf(sentence: string, values: string[]): string[] {
  let rest = sentence;
  for (const v of values) rest = rest.split(v).join(' ');
  const words = [...new Set((rest.toLowerCase().match(/[a-z][a-z-]{2,}/g) ?? []).filter((w) => !stopWords.has(w)))];
  // Only the sentence's own topic words: generic ones ("path", "file") would make one question disclose every fact.
  return words.sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, 5);
}

/** Text the solution reads: the oracle, the verifier script and the verifier's files. */
function solutionText(env: EnvironmentSpec): string {
  return [env.oracle.script, env.verifier.script, ...env.verifier.files.map((f) => f.content)].join('\n');
}

/** The facts of an environment's instruction that the solution depends on. */
export function instructionFacts(env: EnvironmentSpec): InstructionFact[] {
  const solution = solutionText(env);
  const facts: InstructionFact[] = [];
  sentencesOf(env.instruction).forEach((sentence, i) => {
    const values = valuesIn(sentence).filter((v) => solution.includes(v));
    if (values.length === 0) return;
    facts.push({ id: `f${i + 1}`, sentence, values, keywords: keywordsOf(sentence, values) });
  });
  return facts;
}

/** The sentence as the user says it, values in backticks (how built-in agents read values out of a reply). */
export function asUserStatement(fact: InstructionFact): string {
  let s = fact.sentence.replace(/`/g, '');
  for (const v of [...fact.values].sort((a, b) => b.length - a.length)) s = s.split(v).join(`\u0000${fact.values.indexOf(v)}\u0000`);
  return s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => `\`${fact.values[Number(i)]}\``);
}
