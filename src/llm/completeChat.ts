import { addUsage } from '../core/ports/model.js';
import type { ChatRequest, ChatResponse, Usage } from '../core/ports/model.js';
import type { EndpointConfig } from '../core/spec/run.js';
import type { ChatModelState } from './chatModelState.js';
import { recordRefusal, recordResponse, refusalOf, replayRecorded } from './chatRecording.js';
import type { RecordedRequest } from './chatRecording.js';
import { callWithRetries } from './chatRetries.js';
import { callCostUsd } from './cost.js';
import { toWireParams } from './openaiWire.js';
import type { WireAnswer, WireParams } from './openaiWire.js';
import type { RequestCache } from './requestCache.js';
import { normaliseRequest, requestCacheKey } from './requestKey.js';

/** One call of a chat model: replayed from the cache when recorded, else asked over the network, priced and recorded. */
export async function completeChat(state: ChatModelState, request: ChatRequest): Promise<ChatResponse> {
  const { endpoint, role, cache, stats } = state;
  stats.calls++;
  const params = toWireParams(role, request);
  const started = performance.now();
  const recording = recordedRequestOf(endpoint, cache, params);
  if (cache && recording) {
    const replayed = await replayRecorded(state, cache, recording, started);
    if (replayed) return replayed;
  }
  let answer: WireAnswer;
  try {
    // A server may echo the key back in what it generates; the answer is stored in run files and the cache.
    answer = scrubAnswer(await callWithRetries(state, request, params), state.scrub);
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal && cache?.mode === 'rw' && recording) await recordRefusal(cache, recording, refusal);
    throw err;
  }
  const costUsd = callCostUsd(endpoint.prices, [role.model, answer.model], answer.promptTokens, answer.completionTokens);
  const usage: Usage = { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens, cachedTokens: answer.cachedTokens, costUsd };
  const response = responseOf(answer, usage, role.model, started);
  stats.usage = addUsage(stats.usage, usage);
  stats.spentUsd += costUsd;
  if (cache?.mode === 'rw' && recording) await recordResponse(state, cache, recording, response);
  return response;
}

/** The request as the cache keys it; undefined without a cache. */
function recordedRequestOf(endpoint: EndpointConfig, cache: RequestCache | undefined, params: WireParams): RecordedRequest | undefined {
  // Hashing the request costs CPU per call; only a cache needs it.
  const useCache = cache !== undefined && cache.mode !== 'off';
  const normalised = useCache ? normaliseRequest(params, endpoint.baseUrls) : undefined;
  return normalised ? { normalised, key: requestCacheKey(normalised) } : undefined;
}

/** The answer as the roles see it, under the role's model name when the server gave none. */
function responseOf(answer: WireAnswer, usage: Usage, roleModel: string, started: number): ChatResponse {
  return {
    message: { content: answer.content, toolCalls: answer.toolCalls, ...(answer.reasoning !== undefined ? { reasoning: answer.reasoning } : {}) },
    finishReason: answer.finishReason,
    usage,
    model: answer.model || roleModel,
    cached: false,
    latencyMs: performance.now() - started,
    ...(answer.tokens ? { tokens: answer.tokens } : {}),
  };
}

function scrubAnswer(answer: WireAnswer, scrub: (text: string) => string): WireAnswer {
  return {
    ...answer,
    content: answer.content === null ? null : scrub(answer.content),
    ...(answer.reasoning !== undefined ? { reasoning: scrub(answer.reasoning) } : {}),
    toolCalls: answer.toolCalls.map((c) => ({ id: scrub(c.id), name: scrub(c.name), arguments: scrub(c.arguments) })),
    model: scrub(answer.model),
  };
}
