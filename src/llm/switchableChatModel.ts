import { addUsage, zeroUsage } from '../core/ports/model.js';
import type { ChatModel, ModelStats } from '../core/ports/model.js';

/** A ChatModel whose model can be replaced between generations (a trainer hook's new checkpoint). */
export interface SwitchableChatModel extends ChatModel {
  switchTo(next: ChatModel): void;
}

/**
 * Delegates to the current model; label and settings follow it, so rollouts record the model that played them.
 * Stats add up over every model it has delegated to, so cost accounting and budgets see the whole run.
 */
export function createSwitchableChatModel(initial: ChatModel): SwitchableChatModel {
  let current = initial;
  const retired: ModelStats[] = [];
  return {
    get label() {
      return current.label;
    },
    get settings() {
      return current.settings;
    },
    complete: (request) => current.complete(request),
    contextWindow: (signal) => current.contextWindow?.(signal) ?? Promise.resolve(undefined),
    stats() {
      const all = [...retired, ...(current.stats ? [current.stats()] : [])];
      return all.reduce<ModelStats>(
        (sum, s) => ({
          calls: sum.calls + s.calls,
          networkRequests: sum.networkRequests + s.networkRequests,
          cacheHits: sum.cacheHits + s.cacheHits,
          retries: sum.retries + s.retries,
          failures: sum.failures + s.failures,
          usage: addUsage(sum.usage, s.usage),
          spentUsd: sum.spentUsd + s.spentUsd,
        }),
        { calls: 0, networkRequests: 0, cacheHits: 0, retries: 0, failures: 0, usage: zeroUsage(), spentUsd: 0 },
      );
    },
    switchTo(next) {
      if (current.stats) retired.push(current.stats());
      current = next;
    },
  };
}
