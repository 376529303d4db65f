import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Archive, type ArchiveSnapshot } from '../../core/evolution/archive.js';
import { buildFrontierModel } from '../../core/evolution/frontierModel.js';
import { snapshotPath } from '../../core/evolution/controller.js';
import { parseGenerationMetrics } from '../../core/metrics/metricsSchema.js';
import { agentConfigSchema, type AgentConfig } from '../../core/spec/agent.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { loadAgent, loadEnvironment, loadUser, SpecError } from '../../core/spec/load.js';
import { runConfigSchema, type RunConfig } from '../../core/spec/run.js';
import type { UserProfile } from '../../core/spec/user.js';
import { seedUsers } from '../../builtin/user/seedUsers.js';
import { FileReadError, readFileBounded } from '../../files/boundedRead.js';
import { runLayout } from '../../store/layout.js';
import { openRun, readAgent, readEnvironment, readGenerationMetrics, readUser } from '../../store/runReader.js';
import { UserError } from '../errors.js';

export interface EvalPairSource {
  pairId: string;
  env: EnvironmentSpec;
  user: UserProfile;
}

/** What `coevolve eval` plays: pairs, an agent, the config whose budgets and sandbox apply, and the run's ids. */
export interface EvalSource {
  kind: 'run' | 'specs';
  name: string;
  runDir: string | null;
  runId: string | null;
  generation: number | null;
  paths: string[];
  config: RunConfig;
  pairs: EvalPairSource[];
  agent: AgentConfig;
  agentFrom: string;
  /** The agent's ability on the run's scale, when the eval plays the agent the run last measured. */
  agentAbility: number | null;
  /** What the run's model believed of each pair (by pair id) for the agent played, when the run fitted that agent. */
  beliefs: Map<string, { predicted: number; posteriorMean: number }> | null;
  /** Every rollout id the run used (empty for specs). */
  runIds: Set<string>;
  /** Users of the run, for the parents of evolved users. */
  users: Map<string, UserProfile>;
  envs: Map<string, EnvironmentSpec>;
}

export const isRunDir = (path: string): boolean => existsSync(runLayout.manifest(path));

/** A run's active archive after its last (or the given) generation, neither retired nor quarantined, with the agent of that snapshot or the one asked for. */
export function runSource(dir: string, agentFlag: string | undefined, generation?: number): EvalSource {
  const index = openRun(dir);
  const finished = index.generations.filter((g) => g.finished).map((g) => g.index);
  if (finished.length === 0) throw new UserError(`${dir}: no finished generation to evaluate`);
  if (generation !== undefined && !finished.includes(generation)) throw new UserError(`${dir}: generation ${generation} is not finished (finished: 0..${Math.max(...finished)})`);
  const last = generation ?? Math.max(...finished);
  const snapPath = runLayout.artifact(dir, snapshotPath(last));
  if (!existsSync(snapPath)) throw new UserError(`${dir}: the archive snapshot of generation ${last} is missing (${relative(dir, snapPath)})`);
  const snap = JSON.parse(readFileSync(snapPath, 'utf8')) as ArchiveSnapshot;
  const envs = new Map<string, EnvironmentSpec>();
  const users = new Map<string, UserProfile>();
  const env = (id: string): EnvironmentSpec => envs.get(id) ?? envs.set(id, readEnvironment(dir, id)).get(id)!;
  const user = (id: string): UserProfile => users.get(id) ?? users.set(id, readUser(dir, id)).get(id)!;
  for (const id of snap.userIds) user(id);
  const pairs = snap.pairs.filter((p) => !p.retired && !p.quarantined).map((p) => ({ pairId: p.pairId, env: env(p.envId), user: user(p.userId) }));
  let agent: AgentConfig;
  let agentFrom: string;
  if (agentFlag === undefined) {
    agent = readAgent(dir, snap.agentId);
    agentFrom = `the agent after generation ${last}`;
  } else if (/^\d+$/.test(agentFlag)) {
    const g = index.generations.find((x) => x.index === Number(agentFlag));
    if (!g?.agentId) throw new UserError(`${dir}: no generation ${agentFlag} (generations 0..${last})`);
    agent = readAgent(dir, g.agentId);
    agentFrom = `the agent of generation ${agentFlag}`;
  } else {
    agent = agentFile(agentFlag);
    agentFrom = agentFlag;
  }
  const metrics = readGenerationMetrics(dir, last);
  const ability = metrics ? parseGenerationMetrics(metrics, `generation ${last}`).metrics.measuredDifficulty?.agent : undefined;
  return {
    kind: 'run', name: index.manifest.name, runDir: dir, runId: index.manifest.runId, generation: last, paths: [dir],
    config: index.manifest.config, pairs, agent, agentFrom,
    agentAbility: ability && ability.id === agent.id ? ability.ability : null,
    beliefs: runBeliefs(snap, env, user, agent.id, index.manifest.config.band),
    runIds: runRolloutIds(dir, index.rollouts.keys()), users, envs,
  };
}

/**
 * The run's fitted model at the snapshot (the controller's builder on the snapshot's ledger, which also holds the
 * generation's agent-race plays recorded after selection), and each active pair's prediction and posterior for the
 * agent played; null for an agent the run never fitted.
 */
function runBeliefs(snap: ArchiveSnapshot, env: (id: string) => EnvironmentSpec, user: (id: string) => UserProfile, agentId: string, band: RunConfig['band']): EvalSource['beliefs'] {
  const archive = Archive.restore(snap, env, user);
  const model = buildFrontierModel(archive, agentId, band);
  if (!model.fit.agents.has(agentId)) return null;
  const beliefs = new Map<string, { predicted: number; posteriorMean: number }>();
  for (const p of archive.pairs.values()) {
    if (p.retired || p.quarantined) continue;
    beliefs.set(p.pairId, { predicted: model.fit.predict(agentId, p.envId, p.userId), posteriorMean: model.posterior.get(p.pairId)!.mean });
  }
  return beliefs;
}

/** Every rollout id a run used: finished rollouts and the measurement plays listed in artifacts/ids/. */
function runRolloutIds(dir: string, finished: Iterable<string>): Set<string> {
  const ids = new Set(finished);
  const idsDir = runLayout.artifact(dir, 'ids');
  if (existsSync(idsDir)) for (const f of readdirSync(idsDir).filter((n) => n.endsWith('.json'))) for (const id of JSON.parse(readFileSync(join(idsDir, f), 'utf8')) as string[]) ids.add(id);
  return ids;
}

/** Environment spec files or folders, each paired with every user (--users, or the built-in seed users). */
export function specSource(paths: string[], userPaths: string[] | undefined, agentFlag: string | undefined): EvalSource {
  const envs = paths.flatMap((p) => specFiles(resolve(p), '.env.yaml')).map((f) => read(f, loadEnvironment));
  if (envs.length === 0) throw new UserError(`no *.env.yaml in ${paths.join(', ')}`);
  const users = userPaths?.length ? userPaths.flatMap((p) => specFiles(resolve(p), '.user.yaml')).map((f) => read(f, loadUser)) : seedUsers();
  const pairs = envs.flatMap((env, i) => users.map((user, j) => ({ pairId: `p${String(i * users.length + j).padStart(4, '0')}`, env, user })));
  const config = runConfigSchema.parse({ apiVersion: specApiVersion, kind: 'Run', name: 'eval', population: { environments: ['specs'] } });
  const agent = agentFlag ? agentFile(agentFlag) : agentConfigSchema.parse({ apiVersion: specApiVersion, kind: 'Agent', id: 'default-agent' });
  return {
    kind: 'specs', name: 'specs', runDir: null, runId: null, generation: null, paths, config, pairs, agent, agentFrom: agentFlag ?? 'default genes',
    agentAbility: null, beliefs: null, runIds: new Set(), users: new Map(users.map((u) => [u.id, u])), envs: new Map(envs.map((e) => [e.id, e])),
  };
}

function agentFile(path: string): AgentConfig {
  if (!existsSync(path)) throw new UserError(`--agent ${path}: no such file (give an agent spec file or a generation number)`);
  if (path.endsWith('.json')) {
    const text = readFileBounded(path, { maxBytes: maxSpecBytes }).toString('utf8');
    const parsed = agentConfigSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new UserError(`${path}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }
  return read(path, loadAgent);
}

function specFiles(path: string, suffix: string): string[] {
  if (!existsSync(path)) throw new UserError(`not found: ${relative(process.cwd(), path) || path}`);
  if (statSync(path).isFile()) return [path];
  return readdirSync(path).sort().flatMap((name) => {
    const full = join(path, name);
    return statSync(full).isDirectory() ? specFiles(full, suffix) : name.endsWith(suffix) ? [full] : [];
  });
}

const maxSpecBytes = 16 * 1024 * 1024;

function read<T>(file: string, load: (text: string, file: string) => T): T {
  try {
    return load(readFileBounded(file, { maxBytes: maxSpecBytes }).toString('utf8'), relative(process.cwd(), file) || file);
  } catch (err) {
    if (err instanceof SpecError || err instanceof FileReadError) throw new UserError(err.message);
    throw err;
  }
}
