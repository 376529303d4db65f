import { join } from 'node:path';
import type { ChatModel } from '../../core/ports/model.js';
import type { Roles } from '../../core/roles/ports.js';
import { createLlmAgent } from '../../core/roles/llm/llmAgent.js';
import { createLlmAgentEvolver } from '../../core/roles/llm/llmAgentEvolver.js';
import { createLlmDesigner } from '../../core/roles/llm/llmDesigner.js';
import { createLlmJudge } from '../../core/roles/llm/llmJudge.js';
import { createLlmUser } from '../../core/roles/llm/llmUser.js';
import { createLlmUserEvolver } from '../../core/roles/llm/llmUserEvolver.js';
import type { EndpointConfig as Endpoint, RoleName, RunConfig } from '../../core/spec/run.js';
import type { AgentModelSwitch } from '../../core/spec/trainerHookResult.js';
import { builtinCastFor } from './builtinCast.js';
import { createChatModel } from '../../llm/createChatModel.js';
import { createEndpointPool, type EndpointPool } from '../../llm/endpointPool.js';
import { resolveApiKey } from '../../llm/apiKey.js';
import { createRequestCache, type CacheMode } from '../../llm/requestCache.js';
import { createSwitchableChatModel, type SwitchableChatModel } from '../../llm/switchableChatModel.js';
import { UserError } from '../errors.js';

export type { CacheMode };

type ComposeOptions = { cacheMode: CacheMode; cacheDir: string; apiKey?: string; env?: NodeJS.ProcessEnv; families?: readonly string[] };
type LlmRole = Extract<RunConfig['roles'][RoleName], { kind: 'llm' }>;

/**
 * The cast of a run from its config: each role built-in or LLM. LLM roles on the same endpoint share one pool, so
 * the endpoint's concurrency limit holds across roles, and one request cache, so a run replays as a whole.
 */
export function composeRoles(
  config: RunConfig,
  options: ComposeOptions,
): { roles: Roles; labels: Record<string, string>; switchAgentModel?: (to: AgentModelSwitch) => void } {
  const builtin = builtinCastFor(options.families ?? []);
  const models = roleModels(config, options);
  const agent = switchableAgentModel(config, models);
  const userModel = models.model('user');
  const designerModel = models.model('designer');
  const judgeModel = models.model('judge');
  const roles: Roles = {
    agent: agent.model ? createLlmAgent(agent.model) : builtin.agent,
    user: userModel ? createLlmUser(userModel) : builtin.user,
    designer: designerModel ? createLlmDesigner(designerModel) : builtin.designer,
    userEvolver: designerModel ? createLlmUserEvolver(designerModel) : builtin.userEvolver,
    judge: judgeModel ? createLlmJudge(judgeModel) : builtin.judge,
    agentEvolver: agent.model ? createLlmAgentEvolver(agent.model) : builtin.agentEvolver,
  };
  return {
    roles,
    labels: { agent: roles.agent.label, user: roles.user.label, designer: roles.designer.label, judge: roles.judge.label },
    ...(agent.switchTo ? { switchAgentModel: agent.switchTo } : {}),
  };
}

interface RoleModels {
  endpointOf(role: RoleName, name: string): Endpoint;
  /** The chat model of an LLM role on an endpoint. */
  modelOn(endpoint: Endpoint, role: LlmRole): ChatModel;
  /** The chat model of a role the config puts on an LLM; undefined for a built-in role. */
  model(role: RoleName): ChatModel | undefined;
}

/** The run's chat models, with one pool per endpoint and set of base URLs and one request cache for all. */
function roleModels(config: RunConfig, options: ComposeOptions): RoleModels {
  const cache = createRequestCache(join(options.cacheDir), options.cacheMode);
  const pools = new Map<string, EndpointPool>();
  const env = options.env ?? process.env;
  const endpointOf = (role: RoleName, name: string): Endpoint => {
    const endpoint = config.endpoints.find((e) => e.name === name);
    if (!endpoint) throw new UserError(`role ${role} uses endpoint "${name}", which the run config does not define`);
    return endpoint;
  };
  // One pool per endpoint and set of base URLs: a trainer hook's new address gets its own, with the same key.
  const poolOf = (endpoint: Endpoint): EndpointPool => {
    const id = JSON.stringify([endpoint.name, endpoint.baseUrls]);
    let pool = pools.get(id);
    if (!pool) {
      // The key is looked up on first use: a run replayed entirely from the cache needs none.
      pool = createEndpointPool(endpoint, () => resolveApiKey(endpoint, options.apiKey ?? hostKey(endpoint.name, env), env));
      pools.set(id, pool);
    }
    return pool;
  };
  const modelOn = (endpoint: Endpoint, role: LlmRole): ChatModel => createChatModel(endpoint, role, { pool: poolOf(endpoint), cache, env });
  const model = (role: RoleName): ChatModel | undefined => {
    const r = config.roles[role];
    if (r.kind !== 'llm') return undefined;
    return modelOn(endpointOf(role, r.endpoint), r);
  };
  return { endpointOf, modelOn, model };
}

/**
 * The agent's model, which can be replaced between generations by what a trainer hook hands back (a new model
 * name, new base URLs, or both); a built-in agent has none.
 */
function switchableAgentModel(config: RunConfig, models: RoleModels): { model?: SwitchableChatModel; switchTo?: (to: AgentModelSwitch) => void } {
  const agentRole = config.roles.agent;
  const first = models.model('agent');
  const model = first ? createSwitchableChatModel(first) : undefined;
  let target = agentRole.kind === 'llm' ? { endpoint: models.endpointOf('agent', agentRole.endpoint), role: agentRole } : undefined;
  if (!model || !target) return model ? { model } : {};
  const switchTo = (to: AgentModelSwitch): void => {
    const current = target!;
    const endpoint = to.baseUrls ? { ...current.endpoint, baseUrls: to.baseUrls } : current.endpoint;
    const role = to.model ? { ...current.role, model: to.model } : current.role;
    target = { endpoint, role };
    model.switchTo(models.modelOn(endpoint, role));
  };
  return { model, switchTo };
}

/**
 * Keys handed over by the editor (from SecretStorage) arrive in the child's environment as
 * COEVOLVE_API_KEY_<ENDPOINT> (or COEVOLVE_API_KEY for all endpoints); they are never written anywhere.
 */
function hostKey(endpointName: string, env: NodeJS.ProcessEnv): string | undefined {
  return env[`COEVOLVE_API_KEY_${endpointName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] ?? env.COEVOLVE_API_KEY;
}
