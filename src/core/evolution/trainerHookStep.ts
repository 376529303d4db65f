import type { RunEvent } from '../ports/runStore.js';
import type { TrainerHookResult } from '../spec/trainerHookResult.js';
import type { ControllerDeps } from './controllerPorts.js';
import { gen4 } from './generationContext.js';
import type { EmitOnce } from './runEvents.js';

/** The trainer hook between generations, and the agent model switches its results ask for. */
export interface TrainerHookStep {
  /** A resumed run plays on with the model the hook last handed back before `startGeneration`, as if it had not stopped. */
  resumeModel(startGeneration: number): void;
  /** Runs the hook after generation `g` (when the config has one); a hook already recorded is not run again. */
  run(g: number): Promise<void>;
}

export function createTrainerHookStep(deps: Pick<ControllerDeps, 'config' | 'recorder' | 'history' | 'hook' | 'switchAgentModel' | 'onProgress'>, emitOnce: EmitOnce): TrainerHookStep {
  const recorded = new Map(
    (deps.history?.events ?? []).filter((e): e is Extract<RunEvent, { type: 'hook.finished' }> => e.type === 'hook.finished').sort((a, b) => a.generation - b.generation).map((e) => [e.generation, e]),
  );
  const switchAgentModel = (result: TrainerHookResult | undefined): void => {
    const to = result?.agent;
    if (!to || (to.model === undefined && to.baseUrls === undefined)) return;
    if (!deps.switchAgentModel) throw new Error(`the trainer hook asked for agent model ${JSON.stringify(to)}, but the agent role is not an LLM role; give roles.agent kind: llm, or have the hook write no result`);
    deps.switchAgentModel(to);
  };
  return {
    resumeModel: (startGeneration) => {
      for (const e of recorded.values()) if (e.generation < startGeneration) switchAgentModel(e.result);
    },
    run: async (g) => {
      const hook = deps.config.trainerHook;
      if (!hook || !deps.hook) return;
      const done = recorded.get(g);
      if (done) return switchAgentModel(done.result);
      deps.onProgress?.({ type: 'phase', generation: g, phase: 'trainer hook' });
      const outputPath = await deps.recorder.writeArtifact(`hooks/g${gen4(g)}.log`, '');
      const resultPath = outputPath.replace(/\.log$/, '.result.json');
      const { recorder } = deps;
      const r = await deps.hook.run({
        command: hook.command,
        timeoutSec: hook.timeoutSec,
        outputPath,
        resultPath,
        env: { COEVOLVE_RUN_DIR: recorder.runDir, COEVOLVE_GENERATION: String(g), COEVOLVE_GENERATION_DIR: `${recorder.runDir}/rollouts/g${gen4(g)}`, COEVOLVE_HOOK_RESULT: resultPath },
      });
      // Switched before the event is written: a result the run cannot honour stops it, and a resume runs the hook again.
      switchAgentModel(r.result);
      await emitOnce({ type: 'hook.finished', generation: g, exitCode: r.exitCode, durationMs: r.durationMs, outputFile: outputPath, ...(r.result ? { result: r.result } : {}) });
    },
  };
}
