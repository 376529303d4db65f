// The Harbor export's `[agent] timeout_sec` is the environment's own agent timeout, never the run's wall clock. The
// export wrote the run's `budgets.wallClockSec` there when an environment set no `agentTimeoutSec`, but that budget
// covers the agent's turns, verification and the user's rating together: Harbor would give the agent alone all of
// it, and an import of the task would make it the environment's agent timeout. The key is left out instead (Harbor's
// `timeout_sec` is optional), and a comment in task.toml names the run's wall clock for what it was.
import assert from 'node:assert/strict';
import { parse as parseToml } from 'smol-toml';
import { renderHarborTask } from '../../../src/datasets/harborTask.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { sampleEnv } from '../llm/samples.js';

const taskToml = (env: EnvironmentSpec, runWallClockSec?: number): string =>
  renderHarborTask(env, { inlineUser: false, ...(runWallClockSec !== undefined ? { runWallClockSec } : {}) }).find((f) => f.path === 'task.toml')!.content;
const agentSection = (text: string): Record<string, unknown> | undefined => (parseToml(text) as Record<string, Record<string, unknown> | undefined>).agent;

describe("Harbor export: [agent] timeout_sec", () => {
  it("is left out when the environment sets no agent timeout, with a comment naming the run's wall clock", () => {
    const env = environmentSpecSchema.parse(sampleEnv);
    assert.equal(env.sandbox.limits.agentTimeoutSec, undefined);
    const text = taskToml(env, 900);
    assert.equal(agentSection(text)?.timeout_sec, undefined, 'not the run wall clock (900)');
    assert.match(text, /^# .*no agent timeout.*900 s.*$/m);
  });

  it("is the environment's own agent timeout when it sets one", () => {
    const env = environmentSpecSchema.parse({ ...sampleEnv, sandbox: { ...sampleEnv.sandbox, limits: { agentTimeoutSec: 120 } } });
    const text = taskToml(env, 900);
    assert.equal(agentSection(text)?.timeout_sec, 120);
    assert.doesNotMatch(text, /900/);
  });
});
