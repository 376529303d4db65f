import type { RunEvent } from '../ports/runStore.js';
import { agentConfigSchema, type AgentConfig } from '../spec/agent.js';
import { specApiVersion } from '../spec/common.js';
import { Archive } from './archive.js';
import type { ControllerDeps } from './controllerPorts.js';
import { drawFrozenSets } from './frontierSelection.js';
import type { EmitOnce } from './runEvents.js';

/** What the loop carries from generation to generation: the archive, the current agent (replaced on promotion). */
export interface RunState {
  archive: Archive;
  agent: AgentConfig;
  /** The first generation still to play: 0 for a new run, the one after the last finished for a resumed one. */
  startGeneration: number;
}

type StartDeps = Pick<ControllerDeps, 'config' | 'recorder' | 'seeds' | 'history'>;

/** A new run from the seeds, or a resumed one from the snapshot of its last finished generation. */
export async function openRun(deps: StartDeps, emitOnce: EmitOnce): Promise<RunState> {
  const finished = (deps.history?.events ?? []).filter((e): e is Extract<RunEvent, { type: 'generation.finished' }> => e.type === 'generation.finished').map((e) => e.generation);
  const lastFinished = finished.length ? Math.max(...finished) : -1;
  const snap = lastFinished >= 0 ? deps.history?.snapshot(lastFinished) : undefined;
  if (deps.history && snap) {
    const h = deps.history;
    const state = { archive: Archive.restore(snap, (id) => h.environment(id), (id) => h.user(id)), agent: h.agent(snap.agentId), startGeneration: lastFinished + 1 };
    await deps.recorder.append({ type: 'run.resumed', fromGeneration: state.startGeneration });
    return state;
  }
  if (deps.history) await deps.recorder.append({ type: 'run.resumed', fromGeneration: 0 });
  else await deps.recorder.append({ type: 'run.started', runId: deps.recorder.manifest.runId });
  return { ...(await seedRun(deps, emitOnce)), startGeneration: 0 };
}

/** Generation 0's archive: the seed environments and users, every pairing of them, and the frozen held-out sets. */
async function seedRun({ config, recorder, seeds }: StartDeps, emitOnce: EmitOnce): Promise<Omit<RunState, 'startGeneration'>> {
  const archive = new Archive();
  const agent = agentConfigSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Agent',
    id: 'agent-g0000',
    genes: config.agent.genes,
    ...(config.agent.systemPrompt ? { systemPrompt: config.agent.systemPrompt } : {}),
  });
  await recorder.writeAgent(agent);
  for (const e of seeds.environments) {
    archive.addEnv(e);
    await recorder.writeEnvironment(e);
    await emitOnce({ type: 'spec.added', kind: 'environment', id: e.id, parent: e.lineage.parent, operator: e.lineage.operator, generation: 0 });
  }
  for (const u of seeds.users) {
    archive.addUser(u);
    await recorder.writeUser(u);
    await emitOnce({ type: 'spec.added', kind: 'user', id: u.id, parent: u.lineage.parent, operator: u.lineage.operator, generation: 0 });
  }
  // Seed pairs: every environment with every user, in a fixed order; PLR picks among them.
  for (const e of seeds.environments) for (const u of seeds.users) archive.addPair(e.id, u.id, 'seed');
  archive.ledger.agents.push({ id: agent.id, parent: null });
  archive.ledger.frozen = await drawFrozenSets(archive, seeds, recorder);
  return { archive, agent };
}
