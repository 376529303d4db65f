// The ATIF export validates against the v1.7 schema written from the spec (test/fixtures/atif, see its SOURCE.md),
// and that schema and the rule checker really reject what v1.7 forbids, so a pass means something.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv from 'ajv';
import { writeSyntheticRun } from '../../../bench/datasets/syntheticRun.js';
import { exportRun } from '../../../src/datasets/exportRun.js';
import { checkAtifTrajectory } from '../../../src/datasets/formatChecks.js';

const schema = JSON.parse(readFileSync(resolve('test/fixtures/atif/atif-v1.7.schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
const errorsOf = (t: unknown): string => (validate(t) ? '' : JSON.stringify(validate.errors?.slice(0, 3)));

type Traj = Record<string, unknown> & { steps: Record<string, unknown>[]; subagent_trajectories?: Traj[] };

describe('ATIF v1.7 export against the schema from the spec', () => {
  let tmp: string;
  const trajectories: Traj[] = [];

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-atif-'));
    const run = await writeSyntheticRun(join(tmp, 'runs'), { lineages: 2, childrenPerLineage: 1, rolloutsPerEnv: 2, writer: 'store' });
    await exportRun(run.dir, { format: 'atif', outDir: join(tmp, 'out'), filter: 'all', now: new Date('2026-02-01T00:00:00Z') });
    for (const split of readdirSync(join(tmp, 'out', 'trajectories'))) {
      for (const f of readdirSync(join(tmp, 'out', 'trajectories', split))) trajectories.push(JSON.parse(readFileSync(join(tmp, 'out', 'trajectories', split, f), 'utf8')) as Traj);
    }
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('every exported trajectory, with its embedded user subagent, is valid', () => {
    assert.ok(trajectories.length >= 4);
    for (const t of trajectories) {
      assert.equal(errorsOf(t), '', `${String(t.trajectory_id)} against the JSON schema`);
      assert.deepEqual(checkAtifTrajectory(t, String(t.trajectory_id)), []);
      assert.equal(t.schema_version, 'ATIF-v1.7');
      const user = t.subagent_trajectories?.[0];
      assert.ok(user, 'the simulated user is embedded');
      assert.notEqual(user.trajectory_id, t.trajectory_id);
      assert.ok(user.steps.some((s) => s.source === 'agent' && s.llm_call_count === 0), 'the built-in user is a non-LLM dispatch');
    }
  });

  const base = (): Traj => JSON.parse(JSON.stringify(trajectories[0])) as Traj;
  const agentStep = (t: Traj): Record<string, unknown> => t.steps.find((s) => s.source === 'agent')!;

  it('the schema rejects what v1.7 forbids', () => {
    const cases: [string, (t: Traj) => void][] = [
      ['an unknown root field', (t) => { t.trajectory = 'x'; }],
      ['tool calls on a user step', (t) => { t.steps[0]!.tool_calls = [{ tool_call_id: 'a', function_name: 'f', arguments: {} }]; }],
      ['metrics on a deterministic (llm_call_count 0) agent step', (t) => { Object.assign(agentStep(t), { llm_call_count: 0, metrics: { prompt_tokens: 1 } }); }],
      ['a v1.6-style subagent reference (session_id only)', (t) => {
        const s = t.steps.find((x) => (x.observation as { results: { subagent_trajectory_ref?: unknown[] }[] } | undefined)?.results.some((r) => r.subagent_trajectory_ref))!;
        for (const r of (s.observation as { results: { subagent_trajectory_ref?: unknown[] }[] }).results) if (r.subagent_trajectory_ref) r.subagent_trajectory_ref = [{ session_id: 'x' }];
      }],
      ['an embedded subagent without trajectory_id', (t) => { delete t.subagent_trajectories![0]!.trajectory_id; }],
      ['schema_version of a later revision', (t) => { t.schema_version = 'ATIF-v1.9'; }],
      ['step_id 0', (t) => { t.steps[0]!.step_id = 0; }],
    ];
    for (const [what, edit] of cases) {
      const t = base();
      edit(t);
      assert.notEqual(errorsOf(t), '', `the schema should reject ${what}`);
    }
  });

  it('the rule checker rejects what JSON Schema cannot express', () => {
    const dup = base();
    dup.subagent_trajectories = [dup.subagent_trajectories![0]!, dup.subagent_trajectories![0]!];
    assert.match(checkAtifTrajectory(dup, 't').join('\n'), /trajectory_id ".*" is not unique/);
    const unresolved = base();
    unresolved.subagent_trajectories = [{ ...unresolved.subagent_trajectories![0]!, trajectory_id: 'other' }];
    assert.match(checkAtifTrajectory(unresolved, 't').join('\n'), /is not among subagent_trajectories/);
    const gap = base();
    gap.steps[1]!.step_id = 5;
    assert.match(checkAtifTrajectory(gap, 't').join('\n'), /expected 2 \(sequential from 1\)/);
    const dangling = base();
    const withObs = dangling.steps.find((s) => s.observation)!;
    (withObs.observation as { results: { source_call_id?: string }[] }).results[0]!.source_call_id = 'nope';
    assert.match(checkAtifTrajectory(dangling, 't').join('\n'), /references "nope", not a tool call of this step/);
  });
});
