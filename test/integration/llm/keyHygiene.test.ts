// Issue 11, item 9, with its exact inputs: a key shorter than 8 characters that the server echoes back (in what
// it generates and in an error) must reach no run file, and the request cache must not replay one server's answers
// for another server that serves a model of the same name.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { roleMarker } from '../../../src/core/roles/llm/roleMarker.js';
import { endpointSchema } from '../../../src/core/spec/run.js';
import { createChatModel, type LlmRoleConfig } from '../../../src/llm/createChatModel.js';
import { ModelError } from '../../../src/llm/modelError.js';
import { createRequestCache } from '../../../src/llm/requestCache.js';
import { runCliWatched } from '../../support/cli.js';
import { reply, startModelServer, type MessageReply, type ModelServer } from '../../support/modelServer.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';

const shortKey = 'Zq7x5';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('key hygiene and cache identity (issue 11, item 9)', function () {
  this.timeout(300_000);
  let server: ModelServer;
  let dir: string;

  before(async () => {
    server = await startModelServer();
    dir = mkdtempSync(join(tmpdir(), 'coevolve-keys-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a 5-character key echoed back by the server out of events, generations and rollouts', async function () {
    this.timeout(0); // the run is held to its progress (runCliWatched)
    writeFileSync(join(dir, 'count.env.yaml'), stringify(JSON.parse(JSON.stringify({ ...sampleEnv, lineage: undefined, provenance: undefined }))));
    writeFileSync(join(dir, 'dana.user.yaml'), stringify(JSON.parse(JSON.stringify({ ...sampleProfile, behavior: { ...sampleProfile.behavior, patience: 8, nonCollaborative: [] } }))));
    writeFileSync(join(dir, 'keys.run.yaml'), stringify({
      apiVersion: 'coevolve/v1', kind: 'Run', name: 'keys', seed: 3, generations: 1,
      population: { environments: ['count.env.yaml'], users: ['dana.user.yaml'], pairsPerGeneration: 1, childrenPerGeneration: 1 },
      k: 1, hintPlays: 0, concurrency: 1,
      sandbox: { backend: 'process' },
      endpoints: [{ name: 'local', baseUrls: [server.baseUrl], apiKeyEnv: 'COEVOLVE_SHORT_KEY', timeoutMs: 5000, maxRetries: 0 }],
      roles: Object.fromEntries(['agent', 'user', 'designer', 'judge'].map((r) => [r, { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0 }])),
    }));
    // The server echoes the key it was sent: in the agent's message and tool call, the user's words, the judge's
    // evidence, and a designer error (which becomes a rejected child's reason in the event log).
    const echo = (r: { authorization: string | undefined }): string => (r.authorization ?? '').replace(/^Bearer /, '');
    server.handle('agent', (r) => {
      const turns = r.body.messages.filter((m) => m.role === 'assistant').length;
      const plan: MessageReply[] = [
        reply.tool('run_command', { command: `echo ${echo(r)} > count.txt` }, `My key is ${echo(r)}.`),
        reply.tool('submit', { summary: `done with ${echo(r)}` }),
      ];
      return plan[Math.min(turns, plan.length - 1)]!;
    });
    server.handle('user', (r) => reply.text(`Count the errors, the password is ${echo(r)}`));
    server.handle('user-rater', (r) => reply.json({ goalMet: false, satisfaction: 2, reason: `it printed ${echo(r)}` }));
    server.handle('judge', (r) => reply.json({ tags: [{ tag: 'clarified_intent', steps: [1], evidence: `saw ${echo(r)}` }] }));
    server.handle('designer', (r) => ({ status: 400, message: `bad request from key ${echo(r)}` }));
    server.handle('user-evolver', (r) => ({ status: 400, message: `bad request from key ${echo(r)}` }));

    const out = join(dir, 'runs');
    const res = await runCliWatched(['run', join(dir, 'keys.run.yaml'), '--out', out, '--cache', 'off'], { env: { COEVOLVE_SHORT_KEY: shortKey } });
    assert.equal(res.code, 0, `${res.stderr}\n${res.stdout}`);
    assert.ok(server.requests.some((r) => r.authorization === `Bearer ${shortKey}`), 'the key was sent, so the server could echo it');
    const runDir = join(out, readdirSync(out)[0]!);
    const files = filesUnder(runDir);
    for (const kind of ['events.jsonl', 'generations', 'rollouts']) assert.ok(files.some((f) => f.includes(kind)), `the run wrote ${kind}`);
    for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(shortKey), `${f.slice(runDir.length)} holds the key`);
    assert.match(readFileSync(join(runDir, 'events.jsonl'), 'utf8'), /\[redacted\]/, 'the echoed key reached the event log, masked');
    assert.ok(!res.stdout.includes(shortKey) && !res.stderr.includes(shortKey), 'the console never shows it either');
  });

  it('records answers per server: the same model name on another server is a replay miss, and rw asks that server', async () => {
    const other = await startModelServer();
    try {
      server.script('agent', reply.text('from the first server'));
      other.handle('agent', () => reply.text('from the second server'));
      const role: LlmRoleConfig = { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0 } as LlmRoleConfig;
      const endpointAt = (url: string) => endpointSchema.parse({ name: 'local', baseUrls: [url], maxRetries: 0 });
      const cacheDir = join(dir, 'cache');
      const ask = { messages: [{ role: 'system' as const, content: `${roleMarker('agent')}\nhi` }, { role: 'user' as const, content: 'which server?' }], seed: 7 };
      const first = await createChatModel(endpointAt(server.baseUrl), role, { cache: createRequestCache(cacheDir, 'rw') }).complete(ask);
      assert.equal(first.message.content, 'from the first server');
      const replayOther = createChatModel(endpointAt(other.baseUrl), role, { cache: createRequestCache(cacheDir, 'replay') });
      await assert.rejects(replayOther.complete(ask), (e: unknown) => e instanceof ModelError && e.kind === 'replay_miss');
      const rwOther = await createChatModel(endpointAt(other.baseUrl), role, { cache: createRequestCache(cacheDir, 'rw') }).complete(ask);
      assert.equal(rwOther.message.content, 'from the second server');
      assert.equal(rwOther.cached, false);
      assert.equal(other.count(), 1);
      const replayFirst = await createChatModel(endpointAt(server.baseUrl), role, { cache: createRequestCache(cacheDir, 'replay') }).complete(ask);
      assert.equal(replayFirst.message.content, 'from the first server', 'each server replays its own answer');
    } finally {
      await other.close();
    }
  });
});
