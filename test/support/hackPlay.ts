// Plays one rollout whose agent is the real LLM agent over the loopback model server, scripted to run a hack's
// commands and submit (or, with no hack, to submit at once: the empty agent). User and judge are the built-in ones.
import { systemClock } from '../../src/core/ports/clock.js';
import type { SandboxBackend } from '../../src/core/ports/sandbox.js';
import { createLlmAgent } from '../../src/core/roles/llm/llmAgent.js';
import { playRollout } from '../../src/core/rollout/engine.js';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import { agentConfigSchema } from '../../src/core/spec/agent.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { endpointSchema, runConfigSchema } from '../../src/core/spec/run.js';
import type { RunConfig } from '../../src/core/spec/run.js';
import { createBuiltinJudge } from '../../src/builtin/judge.js';
import { cooperativeNovice } from '../../src/builtin/user/seedUsers.js';
import { createRuleBasedUser } from '../../src/builtin/user/ruleBasedUser.js';
import { createChatModel } from '../../src/llm/createChatModel.js';
import type { Hack } from './hacks.js';
import type { ModelServer } from './modelServer.js';

export const runDefaults = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'hacks', population: { builtinFamilies: ['log-triage'] } });
/** Default weights, and the largest the schema allows for every part that is not the verifier. */
export const weightSets: Record<'default' | 'maxShaping', RunConfig['reward']> = {
  default: runDefaults.reward,
  maxShaping: { ...runDefaults.reward, efficiency: 10, rubric: 10, satisfaction: 10 },
};

let counter = 0;

export async function playHack(server: ModelServer, backend: SandboxBackend, env: EnvironmentSpec, hack: Hack | undefined, options: { weights?: RunConfig['reward']; labels?: Record<string, string> } = {}): Promise<RolloutRecord> {
  const id = `hack-${process.pid}-${++counter}`;
  // A play that ended early (a hack that killed its own channel is the agent's fault) leaves its "submit" queued;
  // the next play on this server must start from its own script, not submit before its first command.
  server.discard('agent');
  if (hack) server.script('agent', { content: null, toolCalls: hack.commands.map((command, i) => ({ id: `c${i}`, name: 'run_command', arguments: { command } })) });
  server.script('agent', { content: null, toolCalls: [{ id: 'done', name: 'submit', arguments: { summary: 'Done: the task is complete and verified.' } }] });
  const model = createChatModel(endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 }), { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0, maxTokens: 256 });
  return playRollout(
    {
      runId: 'hacks', runSeed: 7, rolloutId: id, generation: 0, pairId: `${env.id}/${cooperativeNovice().id}`, trial: counter, hint: false,
      env, user: cooperativeNovice(), agent: agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'hacker' }),
    },
    {
      backend,
      roles: { agent: createLlmAgent(model), user: createRuleBasedUser(), judge: createBuiltinJudge() },
      budgets: runDefaults.budgets,
      rewardWeights: options.weights ?? runDefaults.reward,
      clock: systemClock,
      labels: options.labels ?? {},
    },
  );
}
