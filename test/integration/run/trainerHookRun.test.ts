// The trainer hook's contract, end to end: between generations a hook process gets the run and generation folders,
// may write a result naming the agent's next model (a new checkpoint at a new address), and the agent plays the
// next generation on it; a run killed after a switch resumes on the switched model; a result the run cannot honour
// stops it with the file, line and column.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { openRun, readRollout } from '../../../src/store/runReader.js';
import { runCli, runCliAsync, startCli } from '../../support/cli.js';
import { reply, startModelServer, type ModelServer } from '../../support/modelServer.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';
import { agentPlan, episodeEnv, scriptOtherRoles } from '../../support/llmEpisodes.js';

// The example hook the README points to; and one that writes a result with a misspelt field.
const exampleHook = resolve('examples/trainer-hook.mjs');
const badHookScript = `import { writeFileSync } from 'node:fs';
writeFileSync(process.env.COEVOLVE_HOOK_RESULT, '{\\n  "agent": { "modle": "ckpt" }\\n}\\n');
`;

function scriptEvolvers(server: ModelServer): void {
  let variant = 0;
  server.handle('designer', () => reply.json({ ...JSON.parse(JSON.stringify(sampleEnv)), instruction: `${sampleEnv.instruction} Variant ${++variant}: report only the number.` }));
  server.handle('user-evolver', () => reply.json({ ...JSON.parse(JSON.stringify(sampleProfile)), behavior: { ...sampleProfile.behavior, patience: 6, nonCollaborative: [] } }));
}
const agentEvolver = () => reply.json({ diagnosis: 'It did not ask first.', playbook: ['Ask which service matters before counting.'], change: 'ask first' });

function byGeneration(runDir: string): Map<number, RolloutRecord[]> {
  const out = new Map<number, RolloutRecord[]>();
  for (const s of openRun(runDir).rollouts.values()) {
    const r = readRollout(runDir, s);
    out.set(r.generation, [...(out.get(r.generation) ?? []), r]);
  }
  return out;
}

interface HookEvent { type: string; generation: number; exitCode: number; result?: { agent?: { model?: string; baseUrls?: string[] } } }
const hookEvents = (runDir: string): HookEvent[] =>
  readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as HookEvent).filter((e) => e.type === 'hook.finished');

describe('the trainer hook hands the agent a new model between generations', function () {
  this.timeout(600_000);
  let dir: string;
  let badHook: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'coevolve-hook-run-'));
    badHook = join(dir, 'bad-hook.mjs');
    writeFileSync(badHook, badHookScript);
    writeFileSync(join(dir, 'count.env.yaml'), stringify(JSON.parse(JSON.stringify({ ...episodeEnv, hint: 'Only the payments service counts.', lineage: undefined, provenance: undefined }))));
    writeFileSync(join(dir, 'dana.user.yaml'), stringify(JSON.parse(JSON.stringify({ ...sampleProfile, behavior: { ...sampleProfile.behavior, patience: 8, nonCollaborative: [] } }))));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const writeConfig = (name: string, extra: object): string => {
    const path = join(dir, `${name}.run.yaml`);
    writeFileSync(path, stringify({
      apiVersion: 'coevolve/v1', kind: 'Run', name, seed: 5,
      population: { environments: ['count.env.yaml'], users: ['dana.user.yaml'], pairsPerGeneration: 1, childrenPerGeneration: 1 },
      k: 2, hintPlays: 0, concurrency: 2,
      sandbox: { backend: 'process' },
      ...extra,
    }));
    return path;
  };

  it('plays each generation on the checkpoint the previous hook returned, and resumes on it after kill -9', async () => {
    const base = await startModelServer({ flavor: 'vllm' });
    const trained = await startModelServer({ flavor: 'vllm' });
    try {
      scriptOtherRoles(base);
      scriptEvolvers(base);
      base.handle('agent', agentPlan);
      base.handle('agent-evolver', agentEvolver);
      trained.handle('agent-evolver', agentEvolver);
      let child: ReturnType<typeof startCli> | undefined;
      let killed = false;
      trained.handle('agent', (r) => {
        // The first request to the first checkpoint: the run dies in the middle of the generation after a switch.
        if (!killed && r.body.model === 'ckpt-g0') {
          killed = true;
          child!.kill('SIGKILL');
        }
        return agentPlan(r);
      });
      const llm = (extra: object = {}) => ({ kind: 'llm', endpoint: 'local', model: 'qwen3-8b', temperature: 0, ...extra });
      const config = writeConfig('hooked', {
        generations: 3,
        endpoints: [{ name: 'local', baseUrls: [base.baseUrl], timeoutMs: 5000, maxRetries: 0 }],
        roles: { agent: llm({ tokenData: 'vllm' }), user: llm(), designer: llm(), judge: llm() },
        trainerHook: { command: [process.execPath, exampleHook, trained.baseUrl], timeoutSec: 60 },
      });
      const out = join(dir, 'runs-hooked');
      const cacheDir = join(dir, 'cache-hooked');
      child = startCli(['run', config, '--out', out, '--cache', 'rw', '--cache-dir', cacheDir]);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exit = await new Promise<string | null>((res) => child!.on('exit', (_code, signal) => res(signal)));
      assert.equal(exit, 'SIGKILL', `the run was killed after the first switch, not ended on its own:\n${stderr}`);
      const runDir = join(out, readdirSync(out)[0]!);
      assert.equal(openRun(runDir).status, 'interrupted');
      assert.deepEqual(hookEvents(runDir).map((e) => [e.generation, e.result?.agent?.model]), [[0, 'ckpt-g0']], 'the first hook result is recorded');

      const resumed = await runCliAsync(['resume', runDir, '--cache', 'rw', '--cache-dir', cacheDir]);
      assert.equal(resumed.code, 0, `${resumed.stderr}\n${resumed.stdout}`);
      assert.equal(openRun(runDir).status, 'completed');

      const gens = byGeneration(runDir);
      const agentModel = (g: number) => [...new Set((gens.get(g) ?? []).map((r) => `${r.models?.agent?.model} @ ${r.models?.agent?.baseUrls.join(',')}`))];
      assert.deepEqual(agentModel(0), [`qwen3-8b @ ${base.baseUrl}`]);
      assert.deepEqual(agentModel(1), [`ckpt-g0 @ ${trained.baseUrl}`], 'generation 1, played after the resume, is on the first checkpoint');
      assert.deepEqual(agentModel(2), [`ckpt-g1 @ ${trained.baseUrl}`]);
      for (const g of [0, 1, 2]) {
        assert.ok((gens.get(g) ?? []).length >= 2, `generation ${g} played`);
        for (const r of gens.get(g)!) assert.equal(r.models?.user?.model, 'qwen3-8b', 'the other roles stay where they were');
      }

      // What the servers saw: the base model only before the first hook, each checkpoint on the trained server.
      const agentAsks = (s: ModelServer) => s.requests.filter((r) => r.role === 'agent').map((r) => r.body.model);
      assert.deepEqual([...new Set(agentAsks(base))], ['qwen3-8b']);
      assert.deepEqual([...new Set(agentAsks(trained))], ['ckpt-g0', 'ckpt-g1']);
      assert.ok(base.requests.filter((r) => r.role === 'user').length > agentAsks(base).length / 3, 'the user kept playing on the base server');

      // Each hook ran once (the one recorded before the kill was not run again) and saw its generation's rollouts.
      assert.deepEqual(hookEvents(runDir).map((e) => [e.generation, e.exitCode, e.result?.agent?.model]), [[0, 0, 'ckpt-g0'], [1, 0, 'ckpt-g1'], [2, 0, 'ckpt-g2']]);
      for (const g of [0, 1, 2]) {
        const log = readFileSync(join(runDir, 'artifacts', 'hooks', `g000${g}.log`), 'utf8');
        assert.equal(log.match(/trained on/g)?.length, 1, `hook ${g} ran once`);
        assert.match(log, new RegExp(`trained on ${gens.get(g)!.length} rollouts of generation ${g} in ${runDir} \\(${gens.get(g)!.length} with token data\\)`), 'the hook sees the token sidecars');
      }
    } finally {
      await base.close();
      await trained.close();
    }
  });

  it('stops the run at a result it cannot read, naming the file, line and column, and records no hook', () => {
    const config = writeConfig('bad-result', {
      generations: 1,
      roles: { agent: { kind: 'builtin' }, user: { kind: 'builtin' }, designer: { kind: 'builtin' }, judge: { kind: 'builtin' } },
      trainerHook: { command: [process.execPath, badHook], timeoutSec: 60 },
    });
    const out = join(dir, 'runs-bad');
    const r = runCli(['run', config, '--out', out]);
    assert.notEqual(r.code, 0);
    const runDir = join(out, readdirSync(out)[0]!);
    const file = join(runDir, 'artifacts', 'hooks', 'g0000.result.json');
    assert.ok(r.stderr.includes(`${file}:2:14: unknown key "modle" in agent; did you mean "model"?`), r.stderr);
    assert.deepEqual(hookEvents(runDir), [], 'a hook whose result was refused is run again on resume');
    assert.ok(existsSync(file), 'the result is kept for the user to read');
  });

  it('refuses a new model for an agent that is not an LLM', () => {
    const config = writeConfig('builtin-agent', {
      generations: 1,
      roles: { agent: { kind: 'builtin' }, user: { kind: 'builtin' }, designer: { kind: 'builtin' }, judge: { kind: 'builtin' } },
      trainerHook: { command: [process.execPath, exampleHook, 'http://127.0.0.1:9/v1'], timeoutSec: 60 },
    });
    const out = join(dir, 'runs-builtin');
    const r = runCli(['run', config, '--out', out]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /the trainer hook asked for agent model .*ckpt-g0.*, but the agent role is not an LLM role/);
  });
});
