// The attack: a trainer hook that prints its environment (a debugging `env`, a crash dump) would write the model
// endpoints' API keys into the run directory's hook output, which run files and exports must never carry.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processTrainerHook } from '../../../src/cli/run/trainerHook.js';

describe('the trainer hook process', () => {
  const saved = { ...process.env };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'coevolve-hook-env-'));
    process.env.COEVOLVE_API_KEY = 'sk-all-endpoints-secret';
    process.env.COEVOLVE_API_KEY_LOCAL_VLLM = 'sk-one-endpoint-secret';
    process.env.COEVOLVE_HOOK_TEST_KEEP = 'kept';
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    rmSync(dir, { recursive: true, force: true });
  });

  it('never sees the endpoints’ API keys, but keeps the rest of the environment and its own variables', async () => {
    const outputPath = join(dir, 'hook.log');
    const r = await processTrainerHook.run({
      command: ['sh', '-c', 'env'],
      env: { COEVOLVE_RUN_DIR: dir },
      timeoutSec: 30,
      outputPath,
      resultPath: join(dir, 'result.json'),
    });
    assert.equal(r.exitCode, 0);
    const out = readFileSync(outputPath, 'utf8');
    assert.doesNotMatch(out, /sk-all-endpoints-secret|sk-one-endpoint-secret|COEVOLVE_API_KEY/);
    assert.match(out, /^COEVOLVE_HOOK_TEST_KEEP=kept$/m, 'the rest of the environment is passed on');
    assert.match(out, new RegExp(`^COEVOLVE_RUN_DIR=${dir}$`, 'm'));
    assert.match(out, /^PATH=/m);
  });
});
