import type { GenerationMetrics } from '../metrics/metricsSchema.js';
import type { ControllerDeps, RunOutcome } from './controllerPorts.js';
import { playGeneration, type GenerationRun } from './generation.js';
import { createEmitOnce } from './runEvents.js';
import { openRun } from './runStart.js';
import { createTrainerHookStep } from './trainerHookStep.js';

export type { ControllerDeps, RunOutcome } from './controllerPorts.js';
export { snapshotPath } from './generation.js';

/**
 * The co-evolution loop: open the run (new, or resumed from its last finished generation), then play generation
 * after generation (generation.ts). Every random choice comes from streams derived from (seed, generation, purpose)
 * or (seed, rollout id), never from completion order, so a run is the same at any concurrency and a killed run
 * resumed from its directory ends exactly where an uninterrupted one would.
 */
export async function runCoevolution(deps: ControllerDeps): Promise<RunOutcome> {
  const { config, recorder } = deps;
  const runId = recorder.manifest.runId;
  const emitOnce = createEmitOnce(recorder, deps.history?.events ?? []);
  const hook = createTrainerHookStep(deps, emitOnce);
  const state = await openRun(deps, emitOnce);
  // A resumed run plays on with the model the trainer hook last handed back, exactly as if it had not stopped.
  hook.resumeModel(state.startGeneration);
  const labels = { 'coevolve.run': runId, 'coevolve.owner-pid': String(process.pid) };
  const run: GenerationRun = { deps, state, labels, runId, emitOnce, trainerHook: hook.run };

  const metrics: GenerationMetrics[] = [];
  const stop = async (g: number): Promise<RunOutcome> => {
    await recorder.append({ type: 'run.finished', status: 'stopped', message: `stopped during generation ${g}; resume to continue` });
    return { status: 'stopped', generationsDone: g, metrics };
  };
  for (let g = state.startGeneration; g < config.generations; g++) {
    if (deps.signal?.aborted) return stop(g);
    try {
      metrics.push(await playGeneration(run, g));
    } catch (err) {
      // Cancellation surfaces as an error from whatever was running (a rollout, a validation, the hook): a clean stop.
      if (deps.signal?.aborted) return stop(g);
      throw err;
    }
  }
  await recorder.append({ type: 'run.finished', status: 'completed' });
  return { status: 'completed', generationsDone: config.generations, metrics };
}
