// A synthetic run directory in the documented layout (ARCHITECTURE.md, format v1), for the dataset tests and the
// export benchmark. Environments form lineages (a seed and mutated children); rollouts look like the rollout
// engine's: a user opening, agent turns with run_command / message_user / submit, the user's replies.
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunEventBody, RunManifest } from '../../src/core/ports/runStore.js';
import type { AtifStep, RolloutRecord } from '../../src/core/rollout/trajectory.js';
import { summarizeRollout } from '../../src/core/rollout/trajectory.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../src/core/spec/environment.js';
import { runConfigSchema } from '../../src/core/spec/run.js';
import { userProfileSchema, type UserProfile } from '../../src/core/spec/user.js';
import { runLayout } from '../../src/store/layout.js';
import { RunWriter } from '../../src/store/runWriter.js';

export interface SyntheticRunOptions {
  /** Seeds; each starts one lineage. */
  lineages: number;
  /** Children per seed, each a child of the previous one (a chain), one per generation. */
  childrenPerLineage: number;
  /** Rollouts per environment. */
  rolloutsPerEnv: number;
  /**
   * store: through the store's RunWriter (durable, fsync per file: use for small runs);
   * fast: plain writes in the same layout, for the benchmark's 10,000 rollouts.
   */
  writer: 'store' | 'fast';
  name?: string;
}

export interface SyntheticRun {
  dir: string;
  environments: EnvironmentSpec[];
  users: UserProfile[];
  rollouts: RolloutRecord[];
}

const config = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'synthetic', population: { builtinFamilies: ['log-triage'] } });

export function syntheticEnvironment(id: string, lineage: number, depth: number, parent: string | null): EnvironmentSpec {
  const errors = 3 + lineage * 2 + depth;
  const log = Array.from({ length: 8 + depth * 2 }, (_, i) => `2026-01-0${(i % 9) + 1} ${i < errors ? 'ERROR' : 'INFO'} worker-${lineage} event ${i}`).join('\n');
  return environmentSpecSchema.parse({
    apiVersion: 'coevolve/v1',
    kind: 'Environment',
    id,
    title: `Count errors in a worker log (lineage ${lineage}, depth ${depth})`,
    family: lineage % 2 === 0 ? 'log-triage' : 'csv-report',
    instruction: `The file app.log holds the log of worker ${lineage}. Write the number of ERROR lines for the service the user names into answer.txt.`,
    sandbox: {
      files: [{ path: 'app.log', content: `${log}\n` }, { path: 'bin/check.sh', content: '#!/bin/sh\ncat answer.txt\n', mode: '755' }],
      setup: ['mkdir -p out', `echo "prepared for lineage ${lineage}" > out/ready.txt`],
      env: { SERVICE_REGION: 'eu' },
    },
    verifier: {
      script: `test "$(cat answer.txt)" = "$(cat /tests/expected.txt)"`,
      files: [{ path: 'expected.txt', content: `${errors}\n` }],
      timeoutSec: 30,
    },
    oracle: { script: `grep -c ERROR app.log > answer.txt` },
    hint: depth > 0 ? `Only lines containing the word ERROR count (depth ${depth}).` : undefined,
    user: {
      request: 'Can you count the errors in the log for me?',
      facts: [{ id: 'service', text: `It is worker-${lineage} I care about.`, keywords: ['which', 'service', 'worker'] }],
      goal: `answer.txt holds ${errors}`,
      requiredFacts: ['service'],
    },
    difficulty: 1 + depth,
    knobs: { horizon: depth * 10, distractors: lineage % 3 },
    skills: ['text-processing', ...(lineage % 2 === 0 ? ['clarification'] : [])],
    lineage: { parent, operator: parent ? 'harder:horizon' : null, generation: depth },
    provenance: { source: 'builtin:log-triage', author: 'synthetic' },
  });
}

function syntheticUser(i: number): UserProfile {
  return userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: `user-${i}`, persona: { name: `User ${i}`, background: 'An operator on call.' } });
}

/** Steps shaped like the engine's; `variant` makes each rollout's content distinct. */
export function syntheticSteps(env: EnvironmentSpec, variant: number, success: boolean, hint: boolean): AtifStep[] {
  const t = (s: number) => `2026-01-01T00:00:${String(s % 60).padStart(2, '0')}.000Z`;
  const steps: AtifStep[] = [{ step_id: 1, timestamp: t(0), source: 'user', message: env.user.request, extra: { disclosedFacts: [] } }];
  if (hint && env.hint) steps.push({ step_id: steps.length + 1, timestamp: t(1), source: 'system', message: `HINT: ${env.hint}`, extra: { hint: true } });
  const metrics = { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 0, cost_usd: 0 };
  const ask = `c${variant}-1`;
  steps.push({
    step_id: steps.length + 1, timestamp: t(2), source: 'agent', message: 'Which service should I look at?',
    tool_calls: [{ tool_call_id: ask, function_name: 'message_user', arguments: { text: 'Which service do you mean?' } }],
    observation: { results: [{ source_call_id: ask, content: env.user.facts[0]?.text ?? 'no idea' }] }, metrics,
  });
  steps.push({ step_id: steps.length + 1, timestamp: t(3), source: 'user', message: env.user.facts[0]?.text ?? 'no idea', extra: { disclosedFacts: ['service'], replyTo: ask } });
  const run = `c${variant}-2`;
  const cmd = success ? 'grep -c ERROR app.log > answer.txt' : `grep -c WARN app.log > answer.txt # attempt ${variant}`;
  steps.push({
    step_id: steps.length + 1, timestamp: t(4), source: 'agent', message: '',
    tool_calls: [{ tool_call_id: run, function_name: 'run_command', arguments: { command: cmd } }],
    observation: { results: [{ source_call_id: run, content: `exit 0 (run ${variant})`, command: { exitCode: 0, durationMs: 4, timedOut: false, truncated: false, stderr: '' } }] }, metrics,
  });
  const sub = `c${variant}-3`;
  steps.push({
    step_id: steps.length + 1, timestamp: t(5), source: 'agent', message: 'Done.',
    tool_calls: [{ tool_call_id: sub, function_name: 'submit', arguments: { summary: 'Counted the ERROR lines.' } }],
    observation: { results: [{ source_call_id: sub, content: 'submitted' }] }, metrics,
  });
  return steps;
}

export function syntheticRollout(env: EnvironmentSpec, user: UserProfile, generation: number, trial: number, variant: number): RolloutRecord {
  const success = (variant * 7919) % 10 < 6;
  const hint = trial % 3 === 2;
  const steps = syntheticSteps(env, variant, success, hint);
  const reward = success ? 1 : 0.1;
  return {
    formatVersion: 1, id: `g${generation}-${env.id}-t${trial}`, runId: 'synthetic-run', generation, pairId: `${env.id}~${user.id}`,
    envId: env.id, userId: user.id, agentId: 'agent-0', trial, hint, seed: variant, status: 'terminated',
    startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:06.000Z', durationMs: 6000,
    roles: { agent: 'built-in heuristic agent (not an LLM)', user: 'built-in rule-based user (not an LLM)', judge: 'built-in judge' },
    // A sandboxed backend, as a real run's rollouts are (exports leave out the unsandboxed process backend's).
    sandbox: { backend: 'bwrap', host: 'local', image: env.sandbox.image },
    steps,
    verifier: { exitCode: success ? 0 : 1, stdout: '', stderr: '', timedOut: false, durationMs: 3, reward: success ? 1 : 0, detail: {} },
    userRating: { goalMet: success, satisfaction: success ? 5 : 2, reason: success ? 'done' : 'wrong number', stopReason: 'agent_submitted' },
    rewards: { verifier: success ? 1 : 0, userGoal: success ? 1 : 0, satisfaction: success ? 1 : 0.25, efficiency: 0.8, rubric: success ? 0.5 : -0.5, total: reward },
    success,
    tags: success ? ['clarified_intent'] : ['premature_submit'],
    usage: { promptTokens: 360, completionTokens: 90, cachedTokens: 0, costUsd: 0 },
    timing: { sandboxMs: 10, modelMs: 0 },
  };
}

export function buildSyntheticRun(o: SyntheticRunOptions): Omit<SyntheticRun, 'dir'> {
  const environments: EnvironmentSpec[] = [];
  for (let l = 0; l < o.lineages; l++) {
    let parent: string | null = null;
    for (let d = 0; d <= o.childrenPerLineage; d++) {
      const id = d === 0 ? `env-${l}` : `env-${l}-c${d}`;
      environments.push(syntheticEnvironment(id, l, d, parent));
      parent = id;
    }
  }
  const users = [syntheticUser(0), syntheticUser(1)];
  const rollouts: RolloutRecord[] = [];
  let variant = 0;
  for (const env of environments) {
    for (let t = 0; t < o.rolloutsPerEnv; t++) rollouts.push(syntheticRollout(env, users[t % users.length]!, env.lineage.generation, t, variant++));
  }
  return { environments, users, rollouts };
}

const manifestOf = (name: string): Omit<RunManifest, 'formatVersion'> => ({
  runId: 'synthetic-run', name, seed: 1, toolVersion: 'synthetic', startedAt: '2026-01-01T00:00:00.000Z', config, roles: { agent: 'built-in heuristic agent (not an LLM)' },
});

/** Writes the run under outputDir and returns its folder and content. */
export async function writeSyntheticRun(outputDir: string, o: SyntheticRunOptions): Promise<SyntheticRun> {
  const run = buildSyntheticRun(o);
  const name = o.name ?? 'synthetic';
  const generations = [...new Set(run.rollouts.map((r) => r.generation))].sort((a, b) => a - b);
  const events: RunEventBody[] = [{ type: 'run.started', runId: 'synthetic-run' }];
  for (const env of run.environments) events.push({ type: 'spec.added', kind: 'environment', id: env.id, parent: env.lineage.parent, operator: env.lineage.operator, generation: env.lineage.generation });
  for (const g of generations) {
    events.push({ type: 'generation.started', generation: g, agentId: 'agent-0', pairs: [] });
    for (const r of run.rollouts.filter((x) => x.generation === g)) {
      events.push({ type: 'rollout.started', generation: g, rolloutId: r.id, pairId: r.pairId });
      events.push({ type: 'rollout.finished', summary: summarizeRollout(r) });
    }
    events.push({ type: 'generation.finished', generation: g });
  }
  events.push({ type: 'run.finished', status: 'completed' });

  if (o.writer === 'store') {
    const w = RunWriter.create(outputDir, manifestOf(name));
    for (const env of run.environments) await w.writeEnvironment(env);
    for (const u of run.users) await w.writeUser(u);
    for (const r of run.rollouts) await w.writeRollout(r);
    for (const e of events) await w.append(e);
    await w.close();
    return { dir: w.runDir, ...run };
  }
  const dir = join(outputDir, `${name}-20260101-000000`);
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  put(runLayout.manifest(dir), JSON.stringify({ formatVersion: 1, ...manifestOf(name) }, null, 2));
  for (const env of run.environments) put(runLayout.environment(dir, env.id), JSON.stringify(env, null, 2));
  for (const u of run.users) put(runLayout.user(dir, u.id), JSON.stringify(u, null, 2));
  for (const r of run.rollouts) put(runLayout.rollout(dir, r.generation, r.id), JSON.stringify(r));
  const lines: string[] = [];
  events.forEach((e, i) => lines.push(JSON.stringify({ seq: i + 1, at: '2026-01-01T00:00:00.000Z', ...e })));
  appendFileSync(runLayout.events(dir), `${lines.join('\n')}\n`);
  return { dir, ...run };
}
