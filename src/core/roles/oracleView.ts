import type { EnvironmentSpec } from '../spec/environment.js';

/** One value of the oracle the agent does not know: it was moved from the instruction to the user. */
export interface OracleUnknown {
  /** The placeholder standing for the value in `OracleView.script`. */
  placeholder: string;
  /** The user's hidden fact that holds the value. */
  factId: string;
  /** What a question about it names (the fact's topic words), never the value. */
  keywords: string[];
  shape: 'path' | 'number' | 'date' | 'word';
}

/**
 * What an oracle-knowing agent may know: the reference solution with every value the user holds back (a backticked
 * value of a user fact that the instruction no longer states) replaced by a placeholder. It never includes the
 * verifier, and never a held-back value.
 */
export interface OracleView {
  script: string;
  unknowns: OracleUnknown[];
}

export function shapeOf(value: string): OracleUnknown['shape'] {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'date';
  if (/^\d+(\.\d+)?$/.test(value)) return 'number';
  if (/\//.test(value) || /\.[a-z0-9]{1,5}$/i.test(value)) return 'path';
  return 'word';
}

export function oracleView(env: EnvironmentSpec): OracleView {
  let script = env.oracle.script;
  const unknowns: OracleUnknown[] = [];
  const facts = [...env.user.facts];
  const values: { value: string; factId: string; keywords: string[] }[] = [];
  for (const f of facts) {
    for (const m of f.text.matchAll(/`([^`\n]+)`/g)) {
      const value = m[1]!;
      if (env.instruction.includes(value) || !script.includes(value)) continue;
      if (!values.some((v) => v.value === value)) values.push({ value, factId: f.id, keywords: f.keywords });
    }
  }
  // Longest first, so a value inside another one (a folder of a path) is not replaced inside it.
  values.sort((a, b) => b.value.length - a.value.length).forEach((v, i) => {
    const placeholder = `{{ask:${v.factId}:${i}}}`;
    script = script.split(v.value).join(placeholder);
    unknowns.push({ placeholder, factId: v.factId, keywords: v.keywords, shape: shapeOf(v.value) });
  });
  return { script, unknowns };
}
