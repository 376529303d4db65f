import type { ArchiveSnapshot } from '../core/evolution/archive.js';
import { snapshotPath } from '../core/evolution/controller.js';
import type { RunHistory } from '../core/evolution/controllerPorts.js';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import { readEventLog } from './eventLog.js';
import { keepDamagedRecord } from './keepDamaged.js';
import { runLayout } from './layout.js';
import { readRunJson, RunFileError, runFileExists, runFileLimits } from './runFiles.js';
import { runRecordRelPath } from './runPaths.js';
import { readAgent, readEnvironment, readRollout, readUser, type RunProblem } from './runReader.js';

/**
 * What a resumed controller reads back from its run directory. A rollout whose file is damaged (truncated by a
 * full disk, edited by hand) is played again instead of failing the resume every time; its damaged file is kept
 * beside the new one (`<id>.json.damaged`), and each such rollout is passed to `onProblem` so the command can say so.
 */
export function loadRunHistory(runDir: string, onProblem: (p: RunProblem) => void = () => undefined): RunHistory {
  const { events } = readEventLog(runLayout.events(runDir));
  const finished = new Set(events.filter((e) => e.type === 'rollout.finished').map((e) => (e.type === 'rollout.finished' ? e.summary.id : '')));
  return {
    events,
    snapshot(generation: number): ArchiveSnapshot | undefined {
      const rel = `artifacts/${snapshotPath(generation)}`;
      if (!runFileExists(runDir, rel)) return undefined;
      const raw = readRunJson(runDir, rel, runFileLimits.snapshot);
      // The archive is restored from this file: a damaged one must stop the resume with its name, not restart it.
      if (typeof raw !== 'object' || raw === null || typeof (raw as { agentId?: unknown }).agentId !== 'string') {
        throw new RunFileError(runDir, rel, 'not an archive snapshot (no agentId); restore it from a backup or start a new run');
      }
      return raw as ArchiveSnapshot;
    },
    rollout(generation: number, id: string): RolloutRecord | undefined {
      const rel = runRecordRelPath({ kind: 'rollout', generation, id });
      const keep = (): string[] => keepDamagedRecord(runDir, [rel, runRecordRelPath({ kind: 'rolloutTokens', generation, id })]);
      // Only rollouts whose finish was logged count. An intact file without its event got the event back from
      // repairRunIndex before this ran, so a file still without one is damaged: kept, and the rollout replayed.
      if (!finished.has(id)) {
        if (runFileExists(runDir, rel)) onProblem({ file: rel, message: `damaged, and no rollout.finished event for it; kept as ${keep().join(' and ')}; the rollout is played again` });
        return undefined;
      }
      if (!runFileExists(runDir, rel)) {
        onProblem({ file: rel, message: 'missing although its rollout.finished event is logged; the rollout is played again' });
        return undefined;
      }
      try {
        return readRollout(runDir, { generation, id });
      } catch (err) {
        if (!(err instanceof RunFileError)) throw err;
        // The replay writes a new file at this name: the damaged one (and its token sidecar) is kept beside it.
        onProblem({ file: rel, message: `${err.reason}; kept as ${keep().join(' and ')}; the rollout is played again` });
        return undefined;
      }
    },
    environment: (id) => readEnvironment(runDir, id),
    user: (id) => readUser(runDir, id),
    agent: (id) => readAgent(runDir, id),
  };
}
