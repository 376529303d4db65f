// "Play one rollout" and "Evolve a child" for one environment spec, as the CodeLens runs them. Playing writes a
// one-off run directory in the standard layout (so the Runs tree, the rollout viewer and curation read it like any
// run); evolving asks the designer for one harder child. No vscode import: the commands wrap these.
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { builtinCastFor } from '../../cli/run/builtinCast.js';
import { cooperativeNovice } from '../../builtin/user/seedUsers.js';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { systemClock } from '../../core/ports/clock.js';
import { createRng } from '../../core/ports/rng.js';
import type { SandboxBackend } from '../../core/ports/sandbox.js';
import type { DesignerRole, Direction, Proposal } from '../../core/roles/ports.js';
import { playRollout } from '../../core/rollout/engine.js';
import { summarizeRollout, type RolloutRecord } from '../../core/rollout/trajectory.js';
import { agentConfigSchema } from '../../core/spec/agent.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { runConfigSchema } from '../../core/spec/run.js';
import { toolVersion } from '../../core/version.js';
import { runLayout } from '../../store/layout.js';
import { RunWriter } from '../../store/runWriter.js';

export interface PlayedRollout {
  runDir: string;
  rolloutId: string;
  rolloutFile: string;
  record: RolloutRecord;
}

/**
 * Plays one episode of `spec` with the built-in roles a run would give it (rule-based user; the heuristic agent for
 * built-in families, the oracle agent for any other: none of them an LLM) and records it as a one-generation run
 * named `play-<id>` under `runsDir`.
 */
export async function playOneRollout(spec: EnvironmentSpec, specFile: string, backend: SandboxBackend, runsDir: string, signal?: Cancellation): Promise<PlayedRollout> {
  const roles = builtinCastFor([spec.family]);
  const name = `play-${spec.id}`.slice(0, 120);
  const config = runConfigSchema.parse({ apiVersion: specApiVersion, kind: 'Run', name, generations: 1, k: 1, hintPlays: 0, population: { environments: [specFile.split(/[\\/]/).pop()!] } });
  const user = cooperativeNovice();
  const agent = agentConfigSchema.parse({ apiVersion: specApiVersion, kind: 'Agent', id: 'agent-g0000', genes: config.agent.genes });
  const runId = randomUUID();
  const labels = { agent: roles.agent.label, user: roles.user.label, designer: roles.designer.label, judge: roles.judge.label };
  const writer = RunWriter.create(runsDir, { runId, name, seed: config.seed, toolVersion, startedAt: systemClock.isoNow(), config, configPath: specFile, roles: labels });
  const pairId = 'p0';
  const rolloutId = `g0000-${pairId}-t0`;
  try {
    await writer.append({ type: 'run.started', runId });
    await Promise.all([writer.writeEnvironment(spec), writer.writeUser(user), writer.writeAgent(agent)]);
    await writer.append({ type: 'spec.added', kind: 'environment', id: spec.id, parent: spec.lineage.parent, operator: spec.lineage.operator, generation: 0 });
    await writer.append({ type: 'spec.added', kind: 'user', id: user.id, parent: null, operator: null, generation: 0 });
    await writer.append({ type: 'generation.started', generation: 0, agentId: agent.id, pairs: [{ pairId, envId: spec.id, userId: user.id, source: 'seed' }] });
    await writer.append({ type: 'rollout.started', generation: 0, rolloutId, pairId });
    const record = await playRollout(
      { runId, runSeed: config.seed, rolloutId, generation: 0, pairId, trial: 0, hint: false, env: spec, user, agent },
      { backend, roles, budgets: config.budgets, rewardWeights: config.reward, clock: systemClock, labels: { 'coevolve.run': runId, 'coevolve.origin': 'editor' }, ...(signal ? { signal } : {}) },
    );
    await writer.writeRollout(record);
    await writer.append({ type: 'rollout.finished', summary: summarizeRollout(record) });
    await writer.append({ type: 'generation.finished', generation: 0 });
    await writer.append({ type: 'run.finished', status: 'completed' });
    return { runDir: writer.runDir, rolloutId, rolloutFile: runLayout.rollout(writer.runDir, 0, rolloutId), record };
  } catch (err) {
    await writer.append({ type: 'run.finished', status: signal?.aborted ? 'stopped' : 'failed', message: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    throw err;
  } finally {
    await writer.close();
  }
}

/** One designer step from `parent`; by default the designer a run would use for its family (built-in or generic operators). */
export async function proposeChild(parent: EnvironmentSpec, options: { direction?: Direction; designer?: DesignerRole; seed?: string; signal?: Cancellation } = {}): Promise<Proposal<EnvironmentSpec>> {
  const designer = options.designer ?? builtinCastFor([parent.family]).designer;
  return designer.propose({
    parent,
    direction: options.direction ?? 'harder',
    // No plays yet: the step is the user's call, so the stats say only that the parent was solved.
    stats: { successRate: 1, regret: 0, plays: 0, meanReward: 1 },
    generation: parent.lineage.generation + 1,
    rng: createRng(options.seed ?? `${parent.id}/${Date.now()}`),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** The child as a spec file: a header saying where it came from, then the spec in the order of the schema. */
export function childSpecText(child: EnvironmentSpec, parentFile: string, designerLabel: string): string {
  const header = [
    '# yaml-language-server: $schema=schemas/environment.schema.json',
    `# Evolved from ${parentFile.split(/[\\/]/).pop()} by ${designerLabel}: ${child.lineage.operator ?? 'mutation'} (generation ${child.lineage.generation}).`,
    '# Validate it (the lens above) before adding it to a run.',
    '',
  ];
  return `${header.join('\n')}${stringify(child, { lineWidth: 0, blockQuote: 'literal' })}`;
}
