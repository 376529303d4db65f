import type { Cancellation } from '../core/ports/cancellation.js';
import type { ChatModel } from '../core/ports/model.js';
import type { EndpointConfig } from '../core/spec/run.js';
import { createChatModelState } from './chatModelState.js';
import { completeChat } from './completeChat.js';
import { createWindowDiscovery } from './discoverContextWindow.js';
import type { EndpointPool } from './endpointPool.js';
import { modelSettingsOf, parseLlmRole } from './llmRole.js';
import type { LlmRoleInput } from './llmRole.js';
import type { RequestCache } from './requestCache.js';
import type { BackoffPolicy } from './retryPolicy.js';

/** An LLM role as written in a run config (defaults optional). */
export type LlmRoleConfig = LlmRoleInput;

export interface ChatModelOptions {
  /** A key handed over by the host (the editor's SecretStorage); wins over the endpoint's `apiKeyEnv`. */
  apiKey?: string;
  /** Where `apiKeyEnv` is looked up; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Share one pool between the roles of an endpoint so its concurrency limit holds for all of them. */
  pool?: EndpointPool;
  cache?: RequestCache;
  backoff?: Partial<BackoffPolicy>;
  /** Source of jitter; defaults to Math.random (jitter is about spreading load, not about results). */
  random?: () => number;
  /** How to wait between retries; a test can record the delays it was asked for. */
  sleep?: (ms: number, signal?: Cancellation) => Promise<void>;
  /** Receives one scrubbed line per retry and per failure. */
  log?: (line: string) => void;
}

/** A ChatModel over any OpenAI-compatible endpoint: cache, retries, timeouts, limits, balancing and cost. */
export function createChatModel(endpoint: EndpointConfig, roleInput: LlmRoleConfig, options: ChatModelOptions = {}): ChatModel {
  const role = parseLlmRole(roleInput);
  const state = createChatModelState(endpoint, role, options);
  const { stats } = state;

  // The window is kept once the server (or a recording) has answered, so a replay asks nothing; a failed read is not.
  const discoverWindow = createWindowDiscovery(state);

  return {
    label: `llm ${endpoint.name}/${role.model}`,
    contextWindow(signal) {
      if (role.contextWindow !== undefined) return Promise.resolve(role.contextWindow);
      return discoverWindow(signal);
    },
    settings: modelSettingsOf(endpoint, role),
    stats: () => ({ ...stats, usage: { ...stats.usage } }),
    complete(request) {
      return completeChat(state, request);
    },
  };
}
