// Scripted LLM roles for whole episodes (an agent that asks, counts and submits, reasoning on every turn) and a
// helper that plays one through the rollout engine with the process backend.
import { playRollout } from '../../src/core/rollout/engine.js';
import { systemClock } from '../../src/core/ports/clock.js';
import type { ChatModel } from '../../src/core/ports/model.js';
import { createLlmAgent } from '../../src/core/roles/llm/llmAgent.js';
import { createLlmJudge } from '../../src/core/roles/llm/llmJudge.js';
import { createLlmUser } from '../../src/core/roles/llm/llmUser.js';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import { agentConfigSchema } from '../../src/core/spec/agent.js';
import { environmentSpecSchema } from '../../src/core/spec/environment.js';
import { endpointSchema, runConfigSchema } from '../../src/core/spec/run.js';
import { createChatModel, type ChatModelOptions, type LlmRoleConfig } from '../../src/llm/createChatModel.js';
import { createSandboxBackend } from '../../src/sandbox/factory.js';
import { reply, type MessageReply, type ModelServer, type RecordedRequest } from './modelServer.js';
import { sampleEnv, sampleProfile } from '../unit/llm/samples.js';

export const episodeEnv = environmentSpecSchema.parse({
  ...sampleEnv,
  sandbox: { files: [{ path: 'app.log', content: 'ERROR payments a\nERROR search b\nERROR payments c\nINFO payments d\nERROR payments e\n' }] },
});
export const runDefaults = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'episodes', population: { builtinFamilies: ['log-triage'] } });

export const agentThoughts = ['I should ask which service matters.', 'Now count the payments errors.', 'The count is written; submit.'];

/** The agent's plan as tool calls, each turn with its reasoning; the server renders it in its own shape. */
export const agentPlanReplies: MessageReply[] = [
  { ...reply.tool('message_user', { text: 'Which service should I count?' }), reasoning: agentThoughts[0] },
  { ...reply.tool('run_command', { command: 'grep -c "ERROR payments" app.log > count.txt' }), reasoning: agentThoughts[1] },
  { ...reply.tool('submit', { summary: 'count.txt holds the payments error count' }), reasoning: agentThoughts[2] },
];

export function agentPlan(r: RecordedRequest): MessageReply {
  const turns = r.body.messages.filter((m) => m.role === 'assistant').length;
  return agentPlanReplies[Math.min(turns, agentPlanReplies.length - 1)]!;
}

export function scriptOtherRoles(server: ModelServer): void {
  server.handle('user', (r) => ({ ...(r.body.messages.length <= 2 ? reply.text('Can you count the errors in app.log?') : reply.text('Only the payments service matters, and the threshold is 3 errors.')), reasoning: 'I am Dana; say only what I know.' }));
  server.handle('user-rater', () => ({ ...reply.json({ goalMet: true, satisfaction: 4, reason: 'done as asked' }), reasoning: 'It asked first and got it right.' }));
  server.handle('judge', () => ({ ...reply.json({ tags: [{ tag: 'clarified_intent', steps: [3], evidence: 'asked which service' }] }), reasoning: 'Step 3 asks about the service.' }));
}

export function modelAt(server: ModelServer, role: Partial<LlmRoleConfig> = {}, options: ChatModelOptions = {}): ChatModel {
  return createChatModel(endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 }), { kind: 'llm', endpoint: 'local', model: 'qwen3-8b', temperature: 0, ...role }, options);
}

export function playEpisode(agentModel: ChatModel, otherModel: ChatModel = agentModel, budgets: Partial<typeof runDefaults.budgets> = {}): Promise<RolloutRecord> {
  return playRollout(
    {
      runId: 'run-1', runSeed: 1, rolloutId: 'r-1', generation: 0, pairId: 'p-1', trial: 0, hint: false,
      env: episodeEnv, user: sampleProfile, agent: agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'agent-0' }),
    },
    {
      backend: createSandboxBackend('process', { warn: () => undefined }),
      roles: { agent: createLlmAgent(agentModel), user: createLlmUser(otherModel), judge: createLlmJudge(otherModel) },
      budgets: { ...runDefaults.budgets, ...budgets },
      rewardWeights: runDefaults.reward,
      clock: systemClock,
    },
  );
}

