// An LLM co-evolution run, every role an LLM, against each server shape the loopback server speaks (vLLM with and
// without parsers, SGLang, Ollama, llama.cpp's server): reasoning is stored on the steps and never sent to the
// simulated user, tool calls are parsed, every role is asked; token data lands in the sidecar and the export holds
// exactly what the server sent, masks only on what the model generated; a replay from the cache makes 0 requests.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { openRun, readRollout, readRolloutTokens } from '../../../src/store/runReader.js';
import type { TokenRolloutLine } from '../../../src/datasets/tokenExport.js';
import { runCli, runCliWatched } from '../../support/cli.js';
import { reply, startModelServer, type ModelServer } from '../../support/modelServer.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';
import { fixtures } from '../../support/flavorFixtures.js';
import { agentPlan, agentThoughts, episodeEnv, scriptOtherRoles } from '../../support/llmEpisodes.js';

function scriptEvolvers(server: ModelServer): void {
  let variant = 0;
  server.handle('designer', () => ({ ...reply.json({ ...JSON.parse(JSON.stringify(sampleEnv)), instruction: `${sampleEnv.instruction} Variant ${++variant}: report only the number.` }), reasoning: 'Make it a little harder.' }));
  server.handle('user-evolver', () => ({ ...reply.json({ ...JSON.parse(JSON.stringify(sampleProfile)), behavior: { ...sampleProfile.behavior, patience: 6, nonCollaborative: [], ambiguity: 0.5 } }), reasoning: 'A vaguer user.' }));
  server.handle('agent-evolver', () => ({ ...reply.json({ diagnosis: 'It did not ask first.', playbook: ['Ask which service matters before counting.'], change: 'ask first' }), reasoning: 'One lesson.' }));
}

function rolloutsOf(runDir: string): RolloutRecord[] {
  return [...openRun(runDir).rollouts.values()].map((s) => readRollout(runDir, s));
}

describe('LLM co-evolution runs against vLLM, SGLang, Ollama and llama.cpp reply shapes', function () {
  this.timeout(600_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'coevolve-flavor-run-'));
    writeFileSync(join(dir, 'count.env.yaml'), stringify(JSON.parse(JSON.stringify({ ...episodeEnv, hint: 'Only the payments service counts.', lineage: undefined, provenance: undefined }))));
    writeFileSync(join(dir, 'dana.user.yaml'), stringify(JSON.parse(JSON.stringify({ ...sampleProfile, behavior: { ...sampleProfile.behavior, patience: 8, nonCollaborative: [] } }))));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [i, f] of fixtures.entries()) {
    it(f.name, async function () {
      this.timeout(0); // the runs are held to their progress (runCliWatched)
      const server = await startModelServer(f.server);
      try {
        scriptOtherRoles(server);
        scriptEvolvers(server);
        server.handle('agent', agentPlan);
        const roleOf = (extra: object = {}) => ({ kind: 'llm', endpoint: 'local', model: 'qwen3-8b', temperature: 0, ...extra });
        const config = join(dir, `flavor-${i}.run.yaml`);
        writeFileSync(config, stringify({
          apiVersion: 'coevolve/v1', kind: 'Run', name: `flavor-${i}`, seed: 9, generations: 2,
          population: { environments: ['count.env.yaml'], users: ['dana.user.yaml'], pairsPerGeneration: 1, childrenPerGeneration: 2 },
          k: 2, hintPlays: 1, concurrency: 2,
          sandbox: { backend: 'process' },
          endpoints: [{ name: 'local', baseUrls: [server.baseUrl], timeoutMs: 5000, maxRetries: 1 }],
          roles: { agent: roleOf(f.role), user: roleOf(f.role?.extraBody ? { extraBody: f.role.extraBody } : {}), designer: roleOf(), judge: roleOf() },
        }));
        const cacheDir = join(dir, `cache-${i}`);
        const out1 = join(dir, `runs-${i}-a`);
        const first = await runCliWatched(['run', config, '--out', out1, '--cache', 'rw', '--cache-dir', cacheDir]);
        assert.equal(first.code, 0, `${first.stderr}\n${first.stdout}`);
        const runDir = join(out1, readdirSync(out1)[0]!);
        assert.equal(openRun(runDir).status, 'completed');
        for (const role of ['agent', 'user', 'user-rater', 'judge', 'designer', 'agent-evolver']) assert.ok(server.count(role) > 0, `${role} was asked`);

        const rollouts = rolloutsOf(runDir);
        assert.ok(rollouts.length >= 4);
        assert.deepEqual(rollouts.filter((r) => r.status === 'error').map((r) => r.error), []);
        assert.ok(rollouts.some((r) => r.success), 'the scripted agent solves the task');
        for (const r of rollouts) {
          const agentSteps = r.steps.filter((s) => s.source === 'agent');
          assert.deepEqual(agentSteps.map((s) => s.reasoning_content), agentThoughts, `reasoning stored on ${r.id}`);
          assert.deepEqual(agentSteps.map((s) => s.tool_calls?.[0]?.function_name), ['message_user', 'run_command', 'submit'], 'tool calls parsed');
          assert.equal(r.models?.agent?.model, 'qwen3-8b');
        }
        const toUser = server.requests.filter((r) => r.role === 'user').map((r) => JSON.stringify(r.body.messages)).join('\n');
        for (const thought of agentThoughts) assert.ok(!toUser.includes(thought), 'the simulated user never sees the agent reasoning');

        if (f.tokens) await checkTokens(server, runDir, rollouts, f.tokens, join(dir, `export-${i}`));
        else assert.ok(rollouts.every((r) => r.tokenSidecar === undefined));

        // Replay from the cache: zero requests of any kind, the same report.
        const chats = server.count();
        const lists = server.modelListRequests;
        const out2 = join(dir, `runs-${i}-b`);
        const replay = await runCliWatched(['run', config, '--out', out2, '--cache', 'replay', '--cache-dir', cacheDir]);
        assert.equal(replay.code, 0, `${replay.stderr}\n${replay.stdout}`);
        assert.equal(server.count(), chats, 'the replay sent no chat request');
        assert.equal(server.modelListRequests, lists, 'nor asked for the model list');
        const report = (d: string): unknown => JSON.parse(runCli(['report', d, '--json']).stdout).generations;
        const replayDir = join(out2, readdirSync(out2)[0]!);
        assert.deepEqual(report(replayDir), report(runDir));
        const again = rolloutsOf(replayDir);
        const byId = new Map(again.map((r) => [r.id, r]));
        for (const r of rollouts) {
          assert.deepEqual(byId.get(r.id)?.steps.map((s) => s.reasoning_content), r.steps.map((s) => s.reasoning_content), 'reasoning replayed');
          assert.deepEqual(readRolloutTokens(replayDir, r), readRolloutTokens(runDir, r), 'token data replayed exactly');
        }
      } finally {
        await server.close();
      }
    });
  }
});

/** The sidecar and both exports hold exactly what the server sent, turn by turn; masks cover only assistant tokens. */
async function checkTokens(server: ModelServer, runDir: string, rollouts: RolloutRecord[], kind: 'ids' | 'logprobs', outBase: string): Promise<void> {
  const sent = server.requests.filter((r) => r.role === 'agent' && r.sent?.tokens).map((r) => r.sent!.tokens!);
  const key = (p: number[] | undefined | null, c: number[] | undefined | null, l: number[] | undefined | null) => JSON.stringify([p ?? null, c ?? null, l ?? null]);
  const sentKeys = new Set(sent.map((t) => (kind === 'ids' ? key(t.promptTokenIds, t.completionTokenIds, t.completionLogprobs) : key(null, null, t.completionLogprobs))));
  let turns = 0;
  for (const r of rollouts) {
    assert.deepEqual(r.tokenSidecar, { file: `${r.id}.tokens.jsonl`, turns: 3 });
    const stored = readRolloutTokens(runDir, r) ?? [];
    assert.deepEqual(stored.map((t) => t.step), r.steps.filter((s) => s.source === 'agent').map((s) => s.step_id));
    for (const t of stored) assert.ok(sentKeys.has(key(t.promptTokenIds, t.completionTokenIds, t.completionLogprobs)), 'a stored turn is what the server sent');
    turns += stored.length;
  }

  const chatOut = `${outBase}-chat`;
  const chat = runCli(['export', runDir, '--format', 'chat-jsonl', '--filter', 'all', '--include-unsandboxed', '--out', chatOut]);
  assert.equal(chat.code, 0, chat.stderr + chat.stdout);
  const lines: TokenRolloutLine[] = readdirSync(join(chatOut, 'data'))
    .filter((f) => f.endsWith('.tokens.jsonl'))
    .flatMap((f) => readFileSync(join(chatOut, 'data', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TokenRolloutLine));
  const chatIds = readdirSync(join(chatOut, 'data')).filter((f) => /^[a-z]+\.jsonl$/.test(f)).flatMap((f) => readFileSync(join(chatOut, 'data', f), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { metadata: { rollout_id: string } }).metadata.rollout_id));
  assert.equal(lines.length, chatIds.length, 'every exported rollout carries token data here');
  assert.ok(turns >= lines.length * 3, 'every stored rollout has its turns');
  assert.ok(lines.length > 0, 'something was exported');
  for (const line of lines) {
    assert.ok(chatIds.includes(line.rollout_id), 'token lines are keyed to the chat lines');
    const stored = readRolloutTokens(runDir, rollouts.find((r) => r.id === line.rollout_id)!)!;
    assert.equal(line.turns.length, stored.length);
    line.turns.forEach((t, i) => {
      assert.deepEqual([t.prompt_token_ids, t.completion_token_ids, t.completion_logprobs], [stored[i]!.promptTokenIds ?? null, stored[i]!.completionTokenIds ?? null, stored[i]!.completionLogprobs ?? null], 'exported exactly');
      if (kind === 'ids') {
        assert.deepEqual(t.loss_mask, [...t.prompt_token_ids!.map(() => 0), ...t.completion_token_ids!.map(() => 1)], 'the mask covers only the completion');
      } else {
        assert.equal(t.loss_mask, null, 'no ids, no mask');
      }
    });
  }
  const card = readFileSync(join(chatOut, 'README.md'), 'utf8');
  assert.match(card, new RegExp(`## Token-level data\\n\\n${lines.length} of the ${chatIds.length} exported rollouts carry token-level data`));
  for (const line of lines) assert.ok(card.includes(`\`${line.rollout_id}\``), 'the card names the rollouts that carry it');

  const atifOut = `${outBase}-atif`;
  assert.equal(runCli(['export', runDir, '--format', 'atif', '--filter', 'all', '--include-unsandboxed', '--out', atifOut]).code, 0);
  const atifFiles = readdirSync(join(atifOut, 'trajectories'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.ok(atifFiles.length > 0);
  for (const e of atifFiles) {
    const t = JSON.parse(readFileSync(join(e.parentPath, e.name), 'utf8')) as { session_id: string; steps: { source: string; metrics?: { logprobs?: number[]; completion_token_ids?: number[] } }[] };
    const stored = readRolloutTokens(runDir, rollouts.find((r) => r.id === t.session_id)!)!;
    assert.deepEqual(t.steps.filter((s) => s.source === 'agent').map((s) => s.metrics?.logprobs), stored.map((s) => s.completionLogprobs), 'ATIF steps carry the logprobs');
    if (kind === 'ids') assert.deepEqual(t.steps.filter((s) => s.source === 'agent').map((s) => s.metrics?.completion_token_ids), stored.map((s) => s.completionTokenIds));
  }
}
