// The scaled run of bench/view/scaleRun.ts hard-links each copy to its source rollout file, so a copy's file holds
// the source's id and generation and the run reader refuses it (the viewer cannot open it, search finds nothing in
// it). For the table and search bench every copy gets its own file: the same transcript, with the id, generation
// and pair id its events give it.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/core/ports/runStore.js';
import { readEventLog } from '../../src/store/eventLog.js';

export function rewriteRolloutFiles(runDir: string): number {
  const { events } = readEventLog(join(runDir, 'events.jsonl'));
  const byId = new Map<string, { generation: number; pairId: string }>();
  for (const e of events as RunEvent[]) if (e.type === 'rollout.finished') byId.set(e.summary.id, { generation: e.summary.generation, pairId: e.summary.pairId });
  let n = 0;
  for (const folder of readdirSync(join(runDir, 'rollouts'))) {
    for (const name of readdirSync(join(runDir, 'rollouts', folder))) {
      const id = name.replace(/\.json$/, '');
      const to = byId.get(id);
      if (!to || !name.endsWith('.json')) continue;
      const path = join(runDir, 'rollouts', folder, name);
      const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      rmSync(path); // a hard link: the source keeps its content
      writeFileSync(path, JSON.stringify({ ...record, id, generation: to.generation, pairId: to.pairId }));
      n++;
    }
  }
  return n;
}
