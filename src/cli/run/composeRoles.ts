import { join } from 'node:path';
import type { ChatModel } from '../../core/ports/model.js';
import type { Roles } from '../../core/roles/ports.js';
import { createLlmAgent } from '../../core/roles/llm/llmAgent.js';
import { createLlmAgentEvolver } from '../../core/roles/llm/llmAgentEvolver.js';
import { createLlmDesigner } from '../../core/roles/llm/llmDesigner.js';
import { createLlmJudge } from '../../core/roles/llm/llmJudge.js';
import { createLlmUser } from '../../core/roles/llm/llmUser.js';
import { createLlmUserEvolver } from '../../core/roles/llm/llmUserEvolver.js';
import type { RoleName, RunConfig } from '../../core/spec/run.js';
import { builtinCastFor } from './builtinCast.js';
import { createChatModel } from '../../llm/createChatModel.js';
import { createEndpointPool, type EndpointPool } from '../../llm/endpointPool.js';
import { resolveApiKey } from '../../llm/apiKey.js';
import { createRequestCache, type CacheMode } from '../../llm/requestCache.js';
import { UserError } from '../errors.js';

export type { CacheMode };

/**
 * The cast of a run from its config: each role built-in or LLM. LLM roles on the same endpoint share one pool, so
 * the endpoint's concurrency limit holds across roles, and one request cache, so a run replays as a whole.
 */
export function composeRoles(config: RunConfig, options: { cacheMode: CacheMode; cacheDir: string; apiKey?: string; env?: NodeJS.ProcessEnv; families?: readonly string[] }): { roles: Roles; labels: Record<string, string> } {
  const builtin = builtinCastFor(options.families ?? []);
  const cache = createRequestCache(join(options.cacheDir), options.cacheMode);
  const pools = new Map<string, EndpointPool>();
  const model = (role: RoleName): ChatModel | undefined => {
    const r = config.roles[role];
    if (r.kind !== 'llm') return undefined;
    const endpoint = config.endpoints.find((e) => e.name === r.endpoint);
    if (!endpoint) throw new UserError(`role ${role} uses endpoint "${r.endpoint}", which the run config does not define`);
    const env = options.env ?? process.env;
    let pool = pools.get(endpoint.name);
    if (!pool) {
      // The key is looked up on first use: a run replayed entirely from the cache needs none.
      pool = createEndpointPool(endpoint, () => resolveApiKey(endpoint, options.apiKey ?? hostKey(endpoint.name, env), env));
      pools.set(endpoint.name, pool);
    }
    return createChatModel(endpoint, r, { pool, cache, env });
  };
  const agentModel = model('agent');
  const userModel = model('user');
  const designerModel = model('designer');
  const judgeModel = model('judge');
  const roles: Roles = {
    agent: agentModel ? createLlmAgent(agentModel) : builtin.agent,
    user: userModel ? createLlmUser(userModel) : builtin.user,
    designer: designerModel ? createLlmDesigner(designerModel) : builtin.designer,
    userEvolver: designerModel ? createLlmUserEvolver(designerModel) : builtin.userEvolver,
    judge: judgeModel ? createLlmJudge(judgeModel) : builtin.judge,
    agentEvolver: agentModel ? createLlmAgentEvolver(agentModel) : builtin.agentEvolver,
  };
  return {
    roles,
    labels: { agent: roles.agent.label, user: roles.user.label, designer: roles.designer.label, judge: roles.judge.label },
  };
}

/**
 * Keys handed over by the editor (from SecretStorage) arrive in the child's environment as
 * COEVOLVE_API_KEY_<ENDPOINT> (or COEVOLVE_API_KEY for all endpoints); they are never written anywhere.
 */
function hostKey(endpointName: string, env: NodeJS.ProcessEnv): string | undefined {
  return env[`COEVOLVE_API_KEY_${endpointName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] ?? env.COEVOLVE_API_KEY;
}
