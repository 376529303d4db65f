import { zeroUsage } from '../core/ports/model.js';
import type { DesignerRole, Direction, Proposal } from '../core/roles/ports.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { KnobName, Knobs, TaskFamily } from './families/family.js';
import { knobNames, resolveKnobs } from './families/family.js';
import { findFamily } from './families/registry.js';

export const builtinDesignerLabel = 'built-in mutation operators (not an LLM)';

/** The operator name the designer records in lineage, e.g. "harder:horizon". */
export const operatorName = (direction: Direction, knob: KnobName): string => `${direction}:${knob}`;

/** One step along a knob, in the direction that makes the task harder or easier; undefined at the bound. */
export function stepKnob(family: TaskFamily, knobs: Knobs, knob: KnobName, direction: Direction): number | undefined {
  const def = family.knobs[knob];
  const delta = (direction === 'harder') === (def.harder === 'up') ? 1 : -1;
  const next = knobs[knob] + delta;
  return next < def.min || next > def.max ? undefined : next;
}

/**
 * A deterministic mutation: move one knob one step and regenerate the child from its family (new content seed from
 * `rng`, so a new id), with lineage {parent, operator, generation}. Refuses with a reason at a bound.
 */
export function mutateEnvironment(parent: EnvironmentSpec, direction: Direction, knob: string | undefined, generation: number, rng: Parameters<TaskFamily['generate']>[1]): Proposal<EnvironmentSpec> {
  const usage = zeroUsage();
  const family = findFamily(parent.family);
  if (!family) {
    return { ok: false, operator: `${direction}:${knob ?? 'any'}`, reason: `environment ${parent.id} is of family "${parent.family}", which the built-in designer cannot regenerate; use an LLM designer for hand-written or imported specs`, usage };
  }
  const knobs = resolveKnobs(family, { knobs: parent.knobs as Partial<Knobs> });
  if (knob !== undefined && !(knobNames as readonly string[]).includes(knob)) {
    return { ok: false, operator: `${direction}:${knob}`, reason: `unknown knob "${knob}" for family ${family.name}; knobs are ${knobNames.join(', ')}`, usage };
  }
  const candidates = (knob ? [knob as KnobName] : rng.shuffle(knobNames)).filter((k) => stepKnob(family, knobs, k, direction) !== undefined);
  const chosen = candidates[0];
  if (chosen === undefined) {
    const which = knob ?? 'every knob';
    const bound = knob ? ` (${knob} = ${knobs[knob as KnobName]}, range ${family.knobs[knob as KnobName].min}..${family.knobs[knob as KnobName].max})` : '';
    return { ok: false, operator: `${direction}:${knob ?? 'any'}`, reason: `${which} of ${parent.id} is already at its ${direction === 'harder' ? 'hardest' : 'easiest'} bound${bound}; choose another knob or the other direction`, usage };
  }
  const childKnobs: Knobs = { ...knobs, [chosen]: stepKnob(family, knobs, chosen, direction) as number };
  const operator = operatorName(direction, chosen);
  const child = family.generate({ knobs: childKnobs }, rng);
  child.lineage = { parent: parent.id, operator, generation };
  return { ok: true, child, operator, usage };
}

export function createBuiltinDesigner(): DesignerRole {
  return {
    kind: 'builtin',
    label: builtinDesignerLabel,
    propose: async ({ parent, direction, knob, generation, rng }) => mutateEnvironment(parent, direction, knob, generation, rng),
  };
}
