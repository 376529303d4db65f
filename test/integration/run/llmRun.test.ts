// A whole co-evolution run with every role on an LLM: agent, simulated user, designer, user evolver, judge and agent
// evolver, served over the real protocol by the loopback model server, with faults injected (429 + Retry-After, 500,
// a hang past the timeout, malformed tool-call JSON, invalid structured output). Then the same run replays from its
// request cache with zero requests and the same report.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { openRun } from '../../../src/store/runReader.js';
import { runCli, runCliWatched } from '../../support/cli.js';
import { reply, startModelServer, type MessageReply, type ModelServer } from '../../support/modelServer.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';

describe('co-evolution run with LLM roles against the loopback model server', function () {
  this.timeout(300_000);
  let server: ModelServer;
  let dir: string;

  before(async () => {
    server = await startModelServer();
    dir = mkdtempSync(join(tmpdir(), 'coevolve-llm-run-'));
    // The task's log is part of the environment, so its oracle passes and an empty agent fails (the child gate).
    const log = 'ERROR payments a\nINFO payments ok\nERROR billing x\nERROR payments b\nERROR payments c\n';
    const withLog = { ...sampleEnv, sandbox: { ...sampleEnv.sandbox, files: [{ path: 'app.log', content: log }] } };
    const env = { ...withLog, hint: 'Only the payments service counts.', lineage: undefined, provenance: undefined };
    writeFileSync(join(dir, 'count.env.yaml'), stringify(JSON.parse(JSON.stringify(env))));
    writeFileSync(join(dir, 'dana.user.yaml'), stringify(JSON.parse(JSON.stringify({ ...sampleProfile, behavior: { ...sampleProfile.behavior, patience: 8, nonCollaborative: [] } }))));
    writeFileSync(join(dir, 'llm.run.yaml'), stringify({
      apiVersion: 'coevolve/v1', kind: 'Run', name: 'llm', seed: 5, generations: 2,
      population: { environments: ['count.env.yaml'], users: ['dana.user.yaml'], pairsPerGeneration: 1, childrenPerGeneration: 2 },
      k: 2, hintPlays: 1, concurrency: 2,
      sandbox: { backend: 'process' },
      endpoints: [{ name: 'local', baseUrls: [server.baseUrl], timeoutMs: 1500, maxRetries: 3, prices: { 'test-model': { inputPerMTok: 1, outputPerMTok: 2 } } }],
      roles: {
        agent: { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0 },
        user: { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0 },
        designer: { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0 },
        judge: { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0 },
      },
    }));

    // Steady-state behaviour of each role, as functions of the request (deterministic, so the cache can replay it).
    server.handle('user', (r) => (r.body.messages.length <= 2 ? reply.text('Can you count the errors in app.log for me?') : reply.text('Only the payments service matters, and the threshold is 3 errors.')));
    server.handle('user-rater', () => reply.json({ goalMet: true, satisfaction: 4, reason: 'done as asked' }));
    server.handle('agent', (r) => {
      const turns = r.body.messages.filter((m) => m.role === 'assistant').length;
      const plan: MessageReply[] = [
        reply.tool('message_user', { text: 'Which service should I count?' }),
        reply.tool('run_command', { command: 'grep -c "ERROR payments" app.log > count.txt' }),
        reply.tool('submit', { summary: 'count.txt holds the payments error count' }),
      ];
      return plan[Math.min(turns, plan.length - 1)]!;
    });
    server.handle('judge', () => reply.json({ tags: [] }));
    let variant = 0;
    server.handle('designer', () => reply.json({ ...JSON.parse(JSON.stringify(withLog)), instruction: `${sampleEnv.instruction} Variant ${++variant}: report only the number.` }));
    server.handle('user-evolver', () => reply.json({ ...JSON.parse(JSON.stringify(sampleProfile)), behavior: { ...sampleProfile.behavior, patience: 6, nonCollaborative: [], ambiguity: 0.5 } }));
    server.handle('agent-evolver', () => reply.json({ diagnosis: 'It did not ask first.', playbook: ['Ask which service matters before counting.'], change: 'ask about the service first' }));

    // Faults, served before the steady state: the adapter retries, the engine hands malformed calls back, the
    // structured-output loop repairs invalid JSON.
    server.script('agent', reply.status(429, '0'), reply.tool('run_command', '{"command": "ls", '));
    server.script('user', reply.status(500));
    server.script('judge', reply.hang(), reply.text('these are not the tags you are looking for'));
  });

  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('completes with faults injected, then replays from its cache with zero requests and the same report', async function () {
    this.timeout(0); // the runs are held to their progress (runCliWatched), not to a deadline a loaded machine breaks
    const cacheDir = join(dir, 'cache');
    const first = await runCliWatched(['run', join(dir, 'llm.run.yaml'), '--out', join(dir, 'runs-1'), '--cache', 'rw', '--cache-dir', cacheDir]);
    assert.equal(first.code, 0, `${first.stderr}\n${first.stdout}`);
    assert.equal(server.pending(), 0, 'every injected fault was served');
    const requests = server.count();
    assert.ok(requests > 10, `requests: ${requests}`);
    for (const role of ['agent', 'user', 'user-rater', 'judge', 'designer', 'agent-evolver']) assert.ok(server.count(role) > 0, `${role} was asked`);

    const runDir1 = join(dir, 'runs-1', readdirSync(join(dir, 'runs-1'))[0]!);
    const run1 = openRun(runDir1);
    assert.equal(run1.status, 'completed');
    assert.match(run1.manifest.roles.agent ?? '', /local|test-model/);
    const summaries = [...run1.rollouts.values()];
    assert.ok(summaries.length >= 4);
    assert.ok(summaries.every((s) => s.status !== 'error'), JSON.stringify(summaries.map((s) => s.status)));
    assert.ok(summaries.some((s) => s.success), 'the scripted agent solves the task');
    assert.ok(summaries.reduce((t, s) => t + s.tokens, 0) > 0, 'tokens are accounted');
    assert.ok(summaries.reduce((t, s) => t + s.costUsd, 0) > 0, 'cost is accounted');
    // The scripted agent solves every variant, so the frontier rightly screens the children out as too easy; what
    // this run shows is that an LLM-designed child passed the validation gate and was judged on its own plays.
    const children = readFileSync(join(runDir1, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; kind?: string; parent?: string | null; reason?: string })
      .filter((e) => e.kind === 'environment' && e.parent && (e.type === 'spec.added' || e.type === 'child.rejected'));
    assert.ok(children.length > 0, 'the LLM designer proposed children');
    assert.ok(children.some((e) => e.type === 'spec.added' || /^screened_out: \d+\/\d+ screening plays/.test(e.reason ?? '')), `an LLM-designed child passed its oracle gate and was screened on plays: ${JSON.stringify(children.map((e) => e.reason))}`);

    const replay = await runCliWatched(['run', join(dir, 'llm.run.yaml'), '--out', join(dir, 'runs-2'), '--cache', 'replay', '--cache-dir', cacheDir]);
    assert.equal(replay.code, 0, `${replay.stderr}\n${replay.stdout}`);
    assert.equal(server.count(), requests, 'the replay sent no request');
    const report = (d: string): unknown => JSON.parse(runCli(['report', d, '--json']).stdout).generations;
    const runDir2 = join(dir, 'runs-2', readdirSync(join(dir, 'runs-2'))[0]!);
    assert.ok(existsSync(runDir2));
    assert.deepEqual(report(runDir2), report(runDir1));
  });
});
