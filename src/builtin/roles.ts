import type { Roles } from '../core/roles/ports.js';
import { createBuiltinAgentEvolver } from './agentEvolver.js';
import { createHeuristicAgent } from './agent/heuristicAgent.js';
import { createBuiltinDesigner } from './designer.js';
import { createBuiltinJudge } from './judge.js';
import { createRuleBasedUser } from './user/ruleBasedUser.js';
import { createBuiltinUserEvolver } from './user/userEvolver.js';

/** The full built-in cast: no model, no key, deterministic given the rollout's rng. Every label says "not an LLM". */
export function createBuiltinRoles(): Roles {
  return {
    agent: createHeuristicAgent(),
    user: createRuleBasedUser(),
    designer: createBuiltinDesigner(),
    userEvolver: createBuiltinUserEvolver(),
    judge: createBuiltinJudge(),
    agentEvolver: createBuiltinAgentEvolver(),
  };
}
