import { readFileSync } from 'node:fs';
import { playRollout } from './src/core/rollout/engine.js';
import { systemClock } from './src/core/ports/clock.js';
import { createBuiltinRoles } from './src/builtin/roles.js';
import { createSandboxBackend } from './src/sandbox/factory.js';
import { referenceAgent } from './src/core/evolution/userAdmission.js';
import { runConfigSchema } from './src/core/spec/run.js';
import { applyUserMove } from './src/builtin/user/userEvolver.js';
async function main(): Promise<void> {
const dir = process.argv[2]!;
const snap = JSON.parse(readFileSync(`${dir}/artifacts/state/g0000.json`, 'utf8'));
const parent = JSON.parse(readFileSync(`${dir}/users/cooperative-novice.json`, 'utf8'));
const p = applyUserMove(parent, 'harder:enable_fragments', 0); if (!p.ok) throw new Error('x');
const child = { ...p.child, id: 'cooperative-novice-u5333dc5f' };
const cfg = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'x', population: { builtinFamilies: ['log-triage'] } });
const backend = createSandboxBackend('process');
const roles = createBuiltinRoles();
const envIds = [...new Set(snap.pairs.filter((x: any) => x.userId === 'cooperative-novice').map((x: any) => x.envId))];
for (const envId of envIds) {
  const env = JSON.parse(readFileSync(`${dir}/environments/${envId}.json`, 'utf8'));
  for (const u of [parent, child]) {
    const res: string[] = [];
    for (let t = 0; t < 3; t++) {
      const r = await playRollout({ runId: 'x', runSeed: 1, rolloutId: `g0-realism-${child.id}-t${t}`, generation: 0, pairId: 'x', trial: t, hint: true, env, user: u, agent: referenceAgent() },
        { backend, roles, budgets: cfg.budgets, rewardWeights: cfg.reward, clock: systemClock, labels: {} });
      res.push(`${r.success ? 'OK' : 'fail'}(${r.userRating?.stopReason},v=${r.verifier?.reward},goal=${r.userRating?.goalMet},turns=${r.steps.filter((s) => s.source === 'agent').length})`);
      if (!r.success && u === child && t === 0) console.log(r.userRating?.reason);
    }
    console.log(envId, u.id, res.join(' '));
  }
}
await backend.dispose();
}
void main();
