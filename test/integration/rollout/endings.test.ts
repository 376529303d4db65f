// How a rollout ends, through the rollout engine with the real bwrap backend and the LLM roles on the loopback model
// server: a cancelled rollout stops each of its sandboxes exactly once (counted through the sandbox port by a
// recording wrapper around the real backend); the run's wall clock running out after the agent's episode ended
// leaves the ending as it was and records what did not finish; the environment's own agent timeout is recorded as
// `agent_timeout`, not as the run's wall clock; a rollout whose verification the clock cut is no outcome, so it
// does not enter its pair's evidence (it once counted as a failed play).
import assert from 'node:assert/strict';
import { Archive } from '../../../src/core/evolution/archive.js';
import { scorePairs } from '../../../src/core/evolution/pairPlays.js';
import { CancelledError } from '../../../src/core/ports/cancellation.js';
import { systemClock } from '../../../src/core/ports/clock.js';
import type { SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { createLlmAgent } from '../../../src/core/roles/llm/llmAgent.js';
import { createLlmJudge } from '../../../src/core/roles/llm/llmJudge.js';
import { createLlmUser } from '../../../src/core/roles/llm/llmUser.js';
import { playRollout } from '../../../src/core/rollout/engine.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { verdictOf } from '../../../src/core/rollout/verdict.js';
import { agentConfigSchema } from '../../../src/core/spec/agent.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { endpointSchema, runConfigSchema } from '../../../src/core/spec/run.js';
import { createChatModel } from '../../../src/llm/createChatModel.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { recordingBackend, type RecordedCall } from '../../support/recordingBackend.js';
import { reply, startModelServer, type ModelServer } from '../../support/modelServer.js';
import { needService } from '../../support/services.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';
import { bwrapProblem } from '../sandbox/support.js';

const runDefaults = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'endings', population: { builtinFamilies: ['log-triage'] } });
const roles = ['agent', 'user', 'user-rater', 'judge'];

/** The sample task with a log to count in; `verifierScript` replaces its verifier (a slow one, say). */
function task(over: { verifierScript?: string; agentTimeoutSec?: number } = {}): EnvironmentSpec {
  return environmentSpecSchema.parse({
    ...sampleEnv,
    sandbox: {
      files: [{ path: 'app.log', content: 'ERROR payments a\nERROR payments b\nERROR payments c\n' }],
      limits: { commandTimeoutSec: 60, ...(over.agentTimeoutSec !== undefined ? { agentTimeoutSec: over.agentTimeoutSec } : {}) },
    },
    ...(over.verifierScript ? { verifier: { ...sampleEnv.verifier, script: over.verifierScript, timeoutSec: 60 } } : {}),
  });
}

/** The calls that are a sandbox's own (not the backend's start), of one sandbox and method. */
const callsOf = (calls: RecordedCall[], sandbox: number, method: string): RecordedCall[] => calls.filter((c) => c.sandbox === sandbox && c.method === method);
const isVerifierRun = (c: RecordedCall): boolean => c.method === 'exec' && (c.args[1] as { as?: string } | undefined)?.as === 'verifier' && Array.isArray(c.args[0]);

describe('how a rollout ends (bwrap, LLM roles on the loopback server)', function () {
  this.timeout(60_000);
  let server: ModelServer;
  const real = new BwrapBackend();

  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
    server = await startModelServer();
  });
  afterEach(() => {
    for (const role of roles) server.discard(role);
  });
  after(async () => {
    await server?.close();
    await real.dispose();
  });

  function play(backend: SandboxBackend, env: EnvironmentSpec, options: { wallClockSec?: number; signal?: AbortSignal; pairId?: string } = {}): Promise<RolloutRecord> {
    const model = createChatModel(endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 }), { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0, maxTokens: 256 });
    return playRollout(
      {
        runId: 'endings', runSeed: 3, rolloutId: `endings-${Date.now()}`, generation: 0, pairId: options.pairId ?? 'p-1', trial: 0, hint: false,
        env, user: sampleProfile, agent: agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'agent-0' }),
      },
      {
        backend,
        roles: { agent: createLlmAgent(model), user: createLlmUser(model), judge: createLlmJudge(model) },
        budgets: { ...runDefaults.budgets, ...(options.wallClockSec !== undefined ? { wallClockSec: options.wallClockSec } : {}) },
        rewardWeights: runDefaults.reward,
        clock: systemClock,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
  }

  /** The user opens; the agent runs `commands` (one turn each) and submits. */
  function scriptEpisode(commands: string[]): void {
    server.script('user', reply.text('can you count the payments errors in app.log?'));
    server.script('agent', ...commands.map((command) => reply.tool('run_command', { command })), reply.tool('submit', { summary: 'done' }));
  }

  describe('cancellation stops each sandbox exactly once', () => {
    it('cancelled during an agent command', async () => {
      const backend = recordingBackend(real);
      const cancel = new AbortController();
      backend.onCall = (c) => {
        if (c.method === 'exec' && c.args[0] === 'sleep 30') setTimeout(() => cancel.abort(new CancelledError('stopped by the test')), 200);
      };
      scriptEpisode(['sleep 30']);
      await assert.rejects(play(backend, task(), { signal: cancel.signal }), CancelledError);
      assert.deepEqual(backend.stopsPerSandbox(), [1], 'one sandbox, stopped once');
    });

    it('cancelled during the verifier, in its fresh sandbox', async () => {
      const backend = recordingBackend(real);
      const cancel = new AbortController();
      backend.onCall = (c) => {
        if (isVerifierRun(c)) setTimeout(() => cancel.abort(new CancelledError('stopped by the test')), 200);
      };
      scriptEpisode([]);
      await assert.rejects(play(backend, task({ verifierScript: 'sleep 30' }), { signal: cancel.signal }), CancelledError);
      assert.equal(callsOf(backend.calls, 2, 'exec').filter(isVerifierRun).length, 1, 'the verifier was running in the second sandbox');
      assert.deepEqual(backend.stopsPerSandbox(), [1, 1], "the agent's sandbox and the verifier's, each stopped once");
    });
    it("cancelled as the verifier's sandbox is being started, after the agent's was stopped", async () => {
      const backend = recordingBackend(real);
      const cancel = new AbortController();
      backend.onCall = (c) => {
        // The second start is the verifier's fresh sandbox; verify() has just stopped the agent's.
        if (c.method === 'start' && backend.calls.filter((x) => x.method === 'start').length === 2) cancel.abort(new CancelledError('stopped by the test'));
      };
      scriptEpisode([]);
      await assert.rejects(play(backend, task(), { signal: cancel.signal }), CancelledError);
      assert.deepEqual(backend.stopsPerSandbox(), [1], "the agent's sandbox, stopped once; the verifier's never started");
    });
  });

  describe("the run's wall clock, once the agent's episode has ended", () => {
    // 6 s: enough for the sandbox, the opening, two agent turns and the verifier (1-2 s on a 2-core VM at load 10),
    // so the clock runs out in the step a test holds up (a model reply that never comes, a verifier that sleeps).
    const wallClockSec = 6;

    it('leaves a submitted ending alone when it runs out during the user\'s rating, and records the rating as unfinished', async () => {
      scriptEpisode(['echo 3 > count.txt']);
      server.script('user-rater', reply.hang());
      const judged = server.count('judge');
      const r = await play(real, task(), { wallClockSec });
      assert.equal(r.status, 'terminated', `${r.status}: ${r.truncationReason ?? r.error ?? ''}`);
      assert.equal(r.truncationReason, undefined);
      assert.equal(r.verifier?.reward, 1, 'the verifier ran and passed before the clock ran out');
      assert.equal(r.userRating, undefined);
      assert.equal(r.unfinished?.step, 'rating');
      assert.equal(r.unfinished?.reason, 'wall_clock');
      assert.match(r.unfinished?.note ?? '', /wall clock ran out during the user's rating/);
      assert.equal(r.success, false, "without the user's rating the goal does not count as met");
      assert.equal(server.count('judge'), judged, 'the judge was not asked after the clock ran out');
    });

    it('keeps the rating when it runs out during the judge\'s tagging', async () => {
      scriptEpisode(['echo 3 > count.txt']);
      server.script('user-rater', reply.json({ goalMet: true, satisfaction: 5, reason: 'done' }));
      server.script('judge', reply.hang());
      const r = await play(real, task(), { wallClockSec });
      assert.equal(r.status, 'terminated', `${r.status}: ${r.truncationReason ?? r.error ?? ''}`);
      assert.equal(r.userRating?.goalMet, true);
      assert.deepEqual(r.unfinished && { step: r.unfinished.step, reason: r.unfinished.reason }, { step: 'judging', reason: 'wall_clock' });
      assert.deepEqual(r.tags, []);
      assert.equal(r.success, true, 'the verifier passed and the goal was met; only the tags are missing');
    });

    it('leaves the ending alone when it runs out during verification, and records verification as unfinished', async () => {
      scriptEpisode([]);
      const rated = server.count('user-rater');
      const r = await play(real, task({ verifierScript: 'sleep 30' }), { wallClockSec });
      assert.equal(r.status, 'terminated', `${r.status}: ${r.truncationReason ?? r.error ?? ''}`);
      assert.equal(r.verifier, undefined);
      assert.deepEqual(r.unfinished && { step: r.unfinished.step, reason: r.unfinished.reason }, { step: 'verification', reason: 'wall_clock' });
      assert.equal(r.success, false);
      assert.equal(server.count('user-rater'), rated, 'the user was not asked to rate after the clock ran out');
    });

    it("does not enter its pair's evidence when it runs out during verification: no outcome, not a failed play", async () => {
      const archive = new Archive();
      const pair = archive.addPair(sampleEnv.id, sampleProfile.id, 'seed');
      scriptEpisode([]);
      const r = await play(real, task({ verifierScript: 'sleep 30' }), { wallClockSec, pairId: pair.pairId });
      assert.equal(r.unfinished?.step, 'verification', r.error);
      assert.match(r.unfinished?.note ?? '', /not counted as a success or a failure in the evidence/);
      assert.equal(verdictOf(r), null);
      const { stats } = scorePairs(archive, 'agent-0', runDefaults, 0, [pair], [r]);
      assert.equal(stats[0]!.plays, 0, 'the pair has no play from it');
      assert.equal(pair.plays?.['agent-0'], undefined, "nor does the pair's evidence for the agent");
      assert.deepEqual(archive.ledger.cells, {}, "nor the fitted model's cells");
    });

    it('records a rating whose prompt cannot fit the window the same way: the ending stays, the rating is unfinished', async () => {
      scriptEpisode(['echo 3 > count.txt']);
      server.script('user-rater', { status: 400, message: "This model's maximum context length is 512 tokens. However, you requested 9000 tokens." });
      const r = await play(real, task());
      assert.equal(r.status, 'terminated', `${r.status}: ${r.truncationReason ?? r.error ?? ''}`);
      assert.equal(r.truncationReason, undefined);
      assert.deepEqual(r.unfinished && { step: r.unfinished.step, reason: r.unfinished.reason }, { step: 'rating', reason: 'context' });
      assert.match(r.unfinished?.note ?? '', /context window/);
    });

    it('still ends an episode it cuts short as truncated: wall_clock, with nothing unfinished', async () => {
      scriptEpisode(['sleep 30']);
      const r = await play(real, task(), { wallClockSec });
      assert.equal(r.status, 'truncated');
      assert.equal(r.truncationReason, 'wall_clock');
      assert.equal(r.unfinished, undefined);
    });
  });

  describe("the environment's own agent timeout", () => {
    it('is recorded as agent_timeout, not as the run\'s wall clock, and the verifier still judges what the agent left', async () => {
      scriptEpisode(['sleep 30']);
      server.script('user-rater', reply.json({ goalMet: false, satisfaction: 1, reason: 'nothing came back' }));
      server.script('judge', reply.json({ tags: [] }));
      const r = await play(real, task({ agentTimeoutSec: 1 }));
      assert.equal(r.status, 'truncated', r.error);
      assert.equal(r.truncationReason, 'agent_timeout');
      assert.equal(r.verifier?.reward, 0, 'the verifier ran on the workspace the agent left (no count.txt)');
      assert.ok(r.userRating, 'the user rated the episode');
      assert.equal(r.unfinished, undefined);
    });
  });
});
