import type { ChatModelState } from './chatModelState.js';
import { fetchContextWindow } from './contextWindow.js';
import { canonicalJson, normaliseRequest, sha256 } from './requestKey.js';

/** The model's context window as its server reports it, recorded in the cache's meta; undefined when unknown. */
export async function discoverContextWindow(state: ChatModelState): Promise<number | undefined> {
  const { endpoint, role, cache, stats, log } = state;
  const metaKey = sha256(`context-window:${canonicalJson({ baseUrls: normaliseRequest({}, endpoint.baseUrls).baseUrls, model: role.model })}`);
  if (cache && cache.mode !== 'off') {
    const hit = await cache.getMeta(metaKey);
    if (hit) return typeof hit.value === 'number' ? hit.value : undefined;
    if (cache.mode === 'replay') return undefined;
  }
  let found: number | undefined;
  try {
    found = await state.getPool().run(async (target) => {
      state.addSecret(target.client.apiKey);
      stats.networkRequests++;
      return fetchContextWindow(target.client, role.model, endpoint.timeoutMs);
    });
  } catch (err) {
    log(state.scrub(`could not read the context window of "${role.model}" from ${endpoint.name}'s /v1/models (${err instanceof Error ? err.message : String(err)}); set contextWindow on the role to fit long conversations`));
  }
  if (cache?.mode === 'rw') await cache.putMeta(metaKey, found ?? null).catch(() => undefined);
  return found;
}
