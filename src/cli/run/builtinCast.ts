// The offline cast: the built-in roles, with the generic ones for environments outside the built-in families. Apart
// from composeRoles so the editor's Play and Evolve can use it without loading the LLM adapter.
import { findFamily } from '../../builtin/families/registry.js';
import { createBuiltinRoles } from '../../builtin/roles.js';
import { createGenericDesigner, designerForAnyEnvironment } from '../../generic/genericDesigner.js';
import { agentForAnyEnvironment, createOracleAgent } from '../../generic/oracleAgent.js';

const isBuiltinFamily = (family: string): boolean => findFamily(family) !== undefined;

/** The offline cast for environments of these families, as a run builds it (the editor's Play uses the same). */
export function builtinCastFor(families: readonly string[]): ReturnType<typeof createBuiltinRoles> {
  return withGenericRoles(createBuiltinRoles(), families);
}

/**
 * Built-in roles for a population with environments outside the built-in families (imported tasks): such
 * environments are played by the oracle agent and evolved by the generic operators, offline; the built-in families
 * keep their own agent and designer.
 */
function withGenericRoles(builtin: ReturnType<typeof createBuiltinRoles>, families: readonly string[]): ReturnType<typeof createBuiltinRoles> {
  if (families.every(isBuiltinFamily)) return builtin;
  return {
    ...builtin,
    agent: agentForAnyEnvironment(builtin.agent, createOracleAgent(), isBuiltinFamily),
    designer: designerForAnyEnvironment(builtin.designer, createGenericDesigner({ satisfiabilityUser: builtin.user }), isBuiltinFamily),
  };
}

