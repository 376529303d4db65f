import type { z } from 'zod';
import type { ModelSettings } from '../core/ports/model.js';
import { llmRoleSchema } from '../core/spec/run.js';
import type { EndpointConfig } from '../core/spec/run.js';
import { scrubSecrets } from './scrubSecrets.js';

/** An LLM role as parsed (defaults applied): what the adapter reads. */
export type LlmRoleSettings = z.infer<typeof llmRoleSchema>;
/** An LLM role as written, defaults optional: what callers may pass. */
export type LlmRoleInput = z.input<typeof llmRoleSchema>;

export function parseLlmRole(role: LlmRoleInput): LlmRoleSettings {
  return llmRoleSchema.parse(role);
}

/** What a rollout records of a role's model (URLs scrubbed of credentials, never a key). */
export function modelSettingsOf(endpoint: EndpointConfig, role: LlmRoleSettings): ModelSettings {
  const settings: ModelSettings = {
    endpoint: endpoint.name,
    baseUrls: endpoint.baseUrls.map((u) => scrubSecrets(u)),
    model: role.model,
    temperature: role.temperature,
    sendReasoning: role.sendReasoning,
    toolCallFormat: role.toolCallFormat,
    tokenData: role.tokenData,
  };
  if (role.topP !== undefined) settings.topP = role.topP;
  if (role.maxTokens !== undefined) settings.maxTokens = role.maxTokens;
  if (role.stop !== undefined) settings.stop = role.stop;
  if (role.extraBody !== undefined) settings.extraBody = role.extraBody;
  if (role.contextWindow !== undefined) settings.contextWindow = role.contextWindow;
  return settings;
}
