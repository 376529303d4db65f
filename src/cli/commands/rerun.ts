import { resolve } from 'node:path';
import type { Command } from 'commander';
import { systemClock } from '../../core/ports/clock.js';
import { playRollout } from '../../core/rollout/engine.js';
import { summarizeRollout, type RolloutRecord } from '../../core/rollout/trajectory.js';
import type { RunConfig } from '../../core/spec/run.js';
import { runLayout } from '../../store/layout.js';
import { openRun, readAgent, readEnvironment, readRollout, readUser } from '../../store/runReader.js';
import { writeFileDurable } from '../../store/durableFile.js';
import { UserError } from '../errors.js';
import { checkRunDirArg } from '../fileArgs.js';
import { composeRoles, type CacheMode } from '../run/composeRoles.js';
import { selectBackend } from '../run/selectBackend.js';

interface RerunFlags {
  cache?: CacheMode;
  cacheDir?: string;
  backend?: RunConfig['sandbox']['backend'];
  fallbackProcess?: boolean;
  json?: boolean;
}

/**
 * `coevolve rerun <runDir> <rolloutId>`: plays one rollout again from what the run recorded (the run config, the
 * environment, user and agent versions, the same rollout id and so the same seeds). The result goes to
 * artifacts/reruns/ of the run, never into the run's own rollouts, and the two outcomes are printed side by side.
 */
export function registerRerunCommand(program: Command): void {
  program
    .command('rerun')
    .description('Play one rollout of a run again from its recorded config and specs; the result goes to <runDir>/artifacts/reruns/.')
    .argument('<runDir>', 'run directory')
    .argument('<rolloutId>', 'id of the rollout to re-run')
    .option('--cache <mode>', 'request cache: off, rw or replay', 'rw')
    .option('--cache-dir <dir>', 'request cache folder (default: .coevolve/cache in the current folder)')
    .option('--backend <name>', 'sandbox backend override: auto, docker, bwrap or process')
    .option('--fallback-process', 'with backend auto: allow the unsandboxed process backend')
    .option('--json', 'print the new rollout summary as JSON')
    .action(async (dir: string, rolloutId: string, flags: RerunFlags) => {
      const runDir = resolve(dir);
      checkRunDirArg(runDir);
      const run = openRun(runDir);
      const summary = run.rollouts.get(rolloutId);
      if (!summary) throw new UserError(`rollout "${rolloutId}" is not a finished rollout of ${runDir}; pick one from \`coevolve report\` or the Runs view`);
      const original: RolloutRecord = readRollout(runDir, { generation: summary.generation, id: rolloutId });
      const config: RunConfig = structuredClone(run.manifest.config);
      if (flags.backend) {
        if (!['auto', 'docker', 'bwrap', 'process'].includes(flags.backend)) throw new UserError(`--backend must be auto, docker, bwrap or process, got "${flags.backend}"`);
        config.sandbox.backend = flags.backend;
      }
      const env = readEnvironment(runDir, original.envId);
      const user = readUser(runDir, original.userId);
      const agent = readAgent(runDir, original.agentId);
      const cast = composeRoles(config, { cacheMode: flags.cache ?? 'rw', cacheDir: resolve(flags.cacheDir ?? '.coevolve/cache'), families: [env.family] });
      const choice = await selectBackend(config.sandbox, [env.sandbox.image], {
        allowProcessFallback: flags.fallbackProcess ?? false,
        labels: { 'coevolve.run': `${run.manifest.runId}-rerun` },
        warn: (m) => process.stderr.write(`warning: ${m}\n`),
      });
      process.stderr.write(`re-running ${rolloutId} (generation ${original.generation}, ${env.id} × ${user.id}) on ${choice.name}\n`);
      const abort = new AbortController();
      const onSigint = (): void => abort.abort(new Error('stopped by the user'));
      process.once('SIGINT', onSigint);
      let record: RolloutRecord;
      try {
        record = await playRollout(
          { runId: run.manifest.runId, runSeed: run.manifest.seed, rolloutId, generation: original.generation, pairId: original.pairId, trial: original.trial, hint: original.hint, env, user, agent },
          { backend: choice.backend, roles: cast.roles, budgets: config.budgets, rewardWeights: config.reward, clock: systemClock, signal: abort.signal, labels: { 'coevolve.run': `${run.manifest.runId}-rerun` } },
        );
      } finally {
        process.off('SIGINT', onSigint);
        await choice.backend.dispose().catch(() => undefined);
      }
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
      const out = runLayout.artifact(runDir, `reruns/${rolloutId}-${stamp}.json`);
      writeFileDurable(out, JSON.stringify(record));
      const now = summarizeRollout(record);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ file: out, original: summary, rerun: now }, null, 2)}\n`);
        return;
      }
      const line = (label: string, s: typeof now): string => `${label.padEnd(9)} ${s.success ? 'passed' : 'failed'}  reward ${s.reward.toFixed(3)}  ${s.steps} steps  ${(s.durationMs / 1000).toFixed(1)} s  ${s.status}`;
      process.stdout.write(`${line('recorded', summary)}\n${line('re-run', now)}\nwritten to ${out}\n`);
    });
}
