import type OpenAI from 'openai';

/**
 * The context length a server reports for a model in GET /v1/models, where it says: vLLM and SGLang model cards
 * carry `max_model_len`, llama.cpp's server `meta.n_ctx_train` (the training length: set `contextWindow` when the
 * server runs with a smaller `-c`), some gateways `context_length`. Ollama reports none. A card is taken when its
 * id is the model's, or when it is the only one (llama.cpp names it after the file).
 */
export function contextWindowOf(cards: readonly unknown[], model: string): number | undefined {
  const list = cards.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null);
  const card = list.find((c) => c.id === model) ?? (list.length === 1 ? list[0] : undefined);
  if (!card) return undefined;
  const meta = typeof card.meta === 'object' && card.meta !== null ? (card.meta as Record<string, unknown>) : {};
  for (const value of [card.max_model_len, meta.n_ctx_train, card.context_length]) {
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

export async function fetchContextWindow(client: OpenAI, model: string, timeoutMs: number, signal?: AbortSignal): Promise<number | undefined> {
  const page = await client.models.list({ timeout: timeoutMs, ...(signal ? { signal } : {}) });
  return contextWindowOf(page.data as unknown[], model);
}
