import { openRun, salvageRollouts, type RunProblem } from './runReader.js';
import type { RunWriter } from './runWriter.js';

/**
 * Before a resume: rollouts whose file is intact but whose `rollout.finished` event is missing or corrupt get
 * their event appended again (rebuilt from the file), so the resumed run keeps them instead of playing them
 * twice and the index is whole again. Returns everything found wrong with the run directory.
 */
export async function repairRunIndex(writer: RunWriter): Promise<RunProblem[]> {
  const index = openRun(writer.runDir);
  const known = new Set(index.rollouts.keys());
  salvageRollouts(index);
  for (const [id, summary] of index.rollouts) {
    if (!known.has(id)) await writer.append({ type: 'rollout.finished', summary });
  }
  return index.problems;
}
