import type { EndpointConfig } from '../core/spec/run.js';

type Prices = EndpointConfig['prices'];

/**
 * Cost in USD of one call from the endpoint's price table. The requested model name is looked up first, then the
 * name the server answered with (servers often answer with a dated variant); unknown models cost 0.
 */
export function callCostUsd(prices: Prices, models: readonly string[], promptTokens: number, completionTokens: number): number {
  for (const model of models) {
    const price = prices[model];
    if (price) return (promptTokens * price.inputPerMTok + completionTokens * price.outputPerMTok) / 1_000_000;
  }
  return 0;
}
