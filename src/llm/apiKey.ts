import type { EndpointConfig } from '../core/spec/run.js';
import { ModelError } from './modelError.js';

/** What keyless endpoints are sent instead of a key; it is not a secret and is never scrubbed. */
export const noKeyPlaceholder = 'no-key';

/** The keys worth scrubbing: every real key, whatever its length, and never the placeholder. */
export function isSecret(key: string | undefined): key is string {
  return typeof key === 'string' && key.length > 0 && key !== noKeyPlaceholder;
}

/**
 * The key for an endpoint: the one the host passed (the editor's SecretStorage) wins, else the environment
 * variable the endpoint names. Endpoints without `apiKeyEnv` (a local vLLM, Ollama) get a placeholder, because
 * the SDK would otherwise pick up OPENAI_API_KEY and send it to whatever server the URL points at.
 */
export function resolveApiKey(endpoint: EndpointConfig, hostKey: string | undefined, env: Record<string, string | undefined>): string {
  if (hostKey) return hostKey;
  if (!endpoint.apiKeyEnv) return noKeyPlaceholder;
  const fromEnv = env[endpoint.apiKeyEnv];
  if (fromEnv) return fromEnv;
  throw new ModelError(
    'missing_key',
    `endpoint "${endpoint.name}": no API key — the environment variable ${endpoint.apiKeyEnv} is not set. ` +
      `Set it, or store the key with the "Coevolve: Set API Key" command in the editor.`,
  );
}
