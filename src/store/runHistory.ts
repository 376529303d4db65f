import { existsSync, readFileSync } from 'node:fs';
import type { ArchiveSnapshot } from '../core/evolution/archive.js';
import { snapshotPath } from '../core/evolution/controller.js';
import type { RunHistory } from '../core/evolution/controllerPorts.js';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import { readEventLog } from './eventLog.js';
import { runLayout } from './layout.js';
import { readAgent, readEnvironment, readUser } from './runReader.js';

/** What a resumed controller reads back from its run directory. */
export function loadRunHistory(runDir: string): RunHistory {
  const { events } = readEventLog(runLayout.events(runDir));
  const finished = new Set(events.filter((e) => e.type === 'rollout.finished').map((e) => (e.type === 'rollout.finished' ? e.summary.id : '')));
  return {
    events,
    snapshot(generation: number): ArchiveSnapshot | undefined {
      const p = runLayout.artifact(runDir, snapshotPath(generation));
      return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as ArchiveSnapshot) : undefined;
    },
    rollout(generation: number, id: string): RolloutRecord | undefined {
      // Only rollouts whose finish was logged count: a file written just before a kill, without its event, is replayed.
      if (!finished.has(id)) return undefined;
      const p = runLayout.rollout(runDir, generation, id);
      return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as RolloutRecord) : undefined;
    },
    environment: (id) => readEnvironment(runDir, id),
    user: (id) => readUser(runDir, id),
    agent: (id) => readAgent(runDir, id),
  };
}
