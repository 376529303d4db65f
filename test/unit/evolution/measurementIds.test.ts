// artifacts/ids/gNNNN.json lists a generation's measurement plays. Children are made and screened concurrently, and
// each logged its screening ids when its screening started, so the list followed which child's proposal and
// validation finished first: two identical runs at different concurrency could write different files. Concurrent
// tasks now log into their own lists, appended in plan order.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerationContext } from '../../../src/core/evolution/generationContext.js';
import { inPlanOrder } from '../../../src/core/evolution/measurementPlays.js';

describe('measurement ids of concurrent tasks', () => {
  for (const concurrency of [1, 2, 4]) {
    it(`are logged in plan order whatever order the tasks finish in (concurrency ${concurrency})`, async () => {
      const ctx = { playedIds: ['g1-test-0'] } as unknown as GenerationContext;
      // The later a task is planned, the sooner it logs its plays (as a child with a quick proposal would).
      const tasks = [0, 1, 2, 3].map((i) => async (own: GenerationContext): Promise<number> => {
        await sleep((4 - i) * 15);
        own.playedIds?.push(`g1-screen-c${i}-t0`, `g1-screen-c${i}-t1`);
        return i;
      });
      const results = await inPlanOrder(ctx, concurrency, tasks);
      assert.deepEqual(results, [0, 1, 2, 3]);
      assert.deepEqual(ctx.playedIds, ['g1-test-0', ...[0, 1, 2, 3].flatMap((i) => [`g1-screen-c${i}-t0`, `g1-screen-c${i}-t1`])]);
    });
  }
});
