import { existsSync } from 'node:fs';
import type { RunEvent } from '../core/ports/runStore.js';
import { isRubricTag, rubricVocabulary } from '../core/roles/rubric.js';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import { heldBackFacts } from '../generic/userCentricOperators.js';
import { curationKey, readCuration } from '../store/curation.js';
import { runLayout } from '../store/layout.js';
import { readEnvironment, readRollout, readUser, type RunIndex } from '../store/runReader.js';
import { environmentName, rolloutTabTitle, runLabel, userName } from '../webview/names.js';
import type { HiddenFactView, RolloutRef, RolloutView } from '../webview/protocol.js';
import type { RunResolver } from './runRegistry.js';
import { specView } from './specView.js';

function tryRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Every hidden fact of the pair (the environment's user context, then the profile's own) with the step that told it. */
export function hiddenFacts(env: EnvironmentSpec | undefined, user: UserProfile | undefined, record: RolloutRecord | null): HiddenFactView[] {
  const toldAt = new Map<string, number>();
  for (const s of record?.steps ?? []) {
    if (s.source !== 'user') continue;
    for (const id of s.extra?.disclosedFacts ?? []) if (!toldAt.has(id)) toldAt.set(id, s.step_id);
  }
  const out: HiddenFactView[] = [];
  const held = new Set(env ? heldBackFacts(env).map((f) => f.id) : []);
  const add = (f: { id: string; text: string }, source: HiddenFactView['source'], required: boolean): void => {
    const at = toldAt.get(f.id);
    out.push({ id: f.id, text: f.text, source, required, ...(at !== undefined ? { disclosedAtStep: at } : {}), ...(source === 'environment' && held.has(f.id) ? { heldBack: true as const } : {}) });
  };
  for (const f of env?.user.facts ?? []) add(f, 'environment', env?.user.requiredFacts.includes(f.id) ?? false);
  for (const f of user?.facts ?? []) add(f, 'user', user?.goal?.requires.includes(f.id) ?? false);
  return out;
}

/**
 * Everything the rollout viewer draws, read from the run directory: the rollout record (absent while the rollout
 * runs: its file is written when it finishes), its summary from the index, both specs with what changed against
 * their parents, the hidden facts against what was disclosed, and the reward weights of the run config.
 * The rollout must be one the run's index knows (finished, or started and in flight): an id from a message is
 * checked against the index before any file name is made from it.
 */
export function rolloutView(runs: RunResolver, ref: RolloutRef): RolloutView {
  const run = runs.get(ref.runDir).run;
  const summary = run.rollouts.get(ref.rolloutId) ?? null;
  const gen = run.generations.find((g) => g.index === ref.generation);
  const inFlight = gen?.inFlight.includes(ref.rolloutId) ?? false;
  if ((summary === null || summary.generation !== ref.generation) && !inFlight) {
    throw new Error(`rollout ${ref.rolloutId} is not in generation ${ref.generation} of run ${run.manifest.name}`);
  }
  const filePath = runLayout.rollout(run.dir, ref.generation, ref.rolloutId);
  const record: RolloutRecord | null = existsSync(filePath) ? readRollout(run.dir, { generation: ref.generation, id: ref.rolloutId }) : null;
  const running = record === null && inFlight;
  if (!record && !running) throw new Error(`rollout ${ref.rolloutId} of generation ${ref.generation} has no file in run ${run.manifest.name}`);
  const started = startedEvent(run, ref.rolloutId);
  const pair = gen?.pairs.find((p) => p.pairId === (record?.pairId ?? started?.pairId));
  const envId = record?.envId ?? pair?.envId;
  const userId = record?.userId ?? pair?.userId;
  const envSpec = envId ? tryRead(() => readEnvironment(run.dir, envId)) : undefined;
  const userSpec = userId ? tryRead(() => readUser(run.dir, userId)) : undefined;
  const rubric: NonNullable<RolloutView['rubric']> = {};
  for (const t of record?.tags ?? []) if (isRubricTag(t)) rubric[t] = { polarity: rubricVocabulary[t].polarity, description: rubricVocabulary[t].description };
  const curated = tryRead(() => readCuration(run.dir).states.get(curationKey({ kind: 'rollout', id: ref.rolloutId })));
  return {
    ref,
    record,
    summary,
    running,
    filePath: runs.displayPath(run.dir, filePath),
    env: envId ? specView(run, 'environment', envId) : null,
    user: userId ? specView(run, 'user', userId) : null,
    runName: run.manifest.name,
    runLabel: runLabel(run.manifest),
    rewardWeights: run.manifest.config.reward,
    facts: hiddenFacts(envSpec, userSpec, record),
    rubric,
    curation: { ...(curated?.verdict ? { verdict: curated.verdict } : {}), labels: curated?.labels ?? [], comments: curated?.comments.length ?? 0 },
    ...(envId && userId ? { pairLabel: { env: environmentName(envSpec, envId), user: userName(userSpec, userId) } } : {}),
    tabTitle: rolloutTabTitle({ generation: ref.generation, rolloutId: ref.rolloutId, ...(summary ? { trial: summary.trial, hint: summary.hint } : {}) }, envSpec, userSpec, userId),
  };
}

function startedEvent(run: RunIndex, rolloutId: string): Extract<RunEvent, { type: 'rollout.started' }> | undefined {
  return run.events.find((e): e is Extract<RunEvent, { type: 'rollout.started' }> => e.type === 'rollout.started' && e.rolloutId === rolloutId);
}
