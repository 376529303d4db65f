import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { syntheticRollout, writeSyntheticRun, type SyntheticRun } from '../../../bench/datasets/syntheticRun.js';
import { summarizeRollout } from '../../../src/core/rollout/trajectory.js';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import { runExport } from '../../../src/cli/commands/export.js';
import { exportRun, splitWarning, type ExportOptions } from '../../../src/datasets/exportRun.js';
import { defaultSplitRatios, splitForRoot } from '../../../src/datasets/splits.js';
import { checkAtifTrajectory, checkChatRecord, checkHarborTask, harborRequiredFiles } from '../../../src/datasets/formatChecks.js';
import { appendCuration, type CurationEntry } from '../../../src/store/curation.js';
import { runLayout } from '../../../src/store/layout.js';
import { RunWriter } from '../../../src/store/runWriter.js';

const fixedNow = new Date('2026-02-01T00:00:00.000Z');

function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
}

function readCard(dir: string): { header: Record<string, unknown>; body: string } {
  const text = readFileSync(join(dir, 'README.md'), 'utf8');
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  assert.ok(m, 'README.md starts with a YAML header between --- lines');
  return { header: parseYaml(m[1]!) as Record<string, unknown>, body: m[2]! };
}

describe('dataset export', function () {
  this.timeout(60_000);
  let tmp: string;
  let run: SyntheticRun;
  const out = (name: string) => join(tmp, name);
  // Every third synthetic rollout is a hint play: these tests ask for them; 'what every export leaves out' below
  // checks the defaults.
  const opts = (o: Partial<ExportOptions> & Pick<ExportOptions, 'format' | 'outDir'>): ExportOptions => ({ filter: 'all', now: fixedNow, includeHintPlays: true, ...o });

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-export-'));
    // 6 lineages x 3 versions x 3 rollouts = 54 rollouts, written through the store's own writer.
    run = await writeSyntheticRun(join(tmp, 'runs'), { lineages: 6, childrenPerLineage: 2, rolloutsPerEnv: 3, writer: 'store' });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  describe('chat-jsonl', () => {
    let dir: string;
    before(async () => {
      dir = out('chat');
      await exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: dir, weights: true }));
    });

    it('writes one valid record per rollout, tool-call arguments as JSON strings', () => {
      let total = 0;
      for (const split of ['train', 'validation', 'test']) {
        const path = join(dir, 'data', `${split}.jsonl`);
        if (!existsSync(path)) continue;
        readJsonl(path).forEach((rec, i) => {
          total++;
          assert.deepEqual(checkChatRecord(rec, `${split}.jsonl:${i + 1}`), []);
          const r = rec as { messages: { role: string; tool_calls?: { function: { arguments: unknown } }[] }[]; metadata: { split: string } };
          assert.equal(r.metadata.split, split);
          for (const m of r.messages) for (const c of m.tool_calls ?? []) assert.equal(typeof c.function.arguments, 'string');
        });
      }
      assert.equal(total, run.rollouts.length);
    });

    it('maps the dialogue: instruction as system, user turns, tool results, hint as a later system message', () => {
      const all = readdirSync(join(dir, 'data')).flatMap((f) => readJsonl(join(dir, 'data', f))) as { messages: Record<string, unknown>[]; metadata: { rollout_id: string; hint: boolean; environment: { id: string } } }[];
      const rec = all.find((r) => !r.metadata.hint)!;
      const env = run.environments.find((e) => e.id === rec.metadata.environment.id)!;
      const roles = rec.messages.map((m) => m.role);
      assert.deepEqual(roles, ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
      assert.equal(rec.messages[0]!.content, env.instruction);
      assert.equal(rec.messages[1]!.content, env.user.request);
      // the reply to message_user reaches the agent once, as the tool result
      assert.equal(rec.messages[3]!.content, env.user.facts[0]!.text);
      assert.equal(rec.messages[4]!.content, null);
      assert.equal(rec.messages[2]!.weight, 1);
      const hinted = all.find((r) => r.metadata.hint && r.metadata.environment.id.includes('-c'))!;
      assert.equal(hinted.messages[2]!.role, 'system');
      assert.match(String(hinted.messages[2]!.content), /^HINT: /);
    });

    it('carries metadata: environment, user, generation, reward components, tags', () => {
      const [first] = readdirSync(join(dir, 'data')).flatMap((f) => readJsonl(join(dir, 'data', f))) as { metadata: Record<string, unknown> }[];
      const m = first!.metadata as { environment: Record<string, unknown>; user: { id: string }; reward: Record<string, number>; tags: string[]; generation: number };
      assert.ok(m.environment.family && m.environment.lineage_root);
      assert.match(m.user.id, /^user-/);
      assert.deepEqual(Object.keys(m.reward).sort(), ['efficiency', 'rubric', 'satisfaction', 'total', 'userGoal', 'verifier']);
      assert.ok(m.tags.length > 0);
      assert.equal(typeof m.generation, 'number');
    });

    it('writes a dataset card whose YAML header lists every split file and the license', () => {
      const { header, body } = readCard(dir);
      assert.equal(header.license, 'other');
      assert.ok(Array.isArray(header.task_categories));
      assert.ok((header.tags as string[]).includes('chat-jsonl'));
      const configs = header.configs as { config_name: string; data_files: { split: string; path: string }[] }[];
      assert.equal(configs[0]!.config_name, 'default');
      for (const df of configs[0]!.data_files) assert.ok(existsSync(join(dir, df.path)), `${df.path} exists`);
      assert.deepEqual(configs[0]!.data_files.map((d) => d.split).sort(), readdirSync(join(dir, 'data')).map((f) => f.replace('.jsonl', '')).sort());
      assert.match(body, new RegExp(`\\*\\*${run.rollouts.length} exported\\*\\*`));
    });

    it('is deterministic: the same run exports byte-identical files', async () => {
      const again = out('chat-again');
      await exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: again, weights: true }));
      for (const f of readdirSync(join(dir, 'data'))) assert.equal(readFileSync(join(again, 'data', f), 'utf8'), readFileSync(join(dir, 'data', f), 'utf8'));
      assert.equal(readFileSync(join(again, 'README.md'), 'utf8'), readFileSync(join(dir, 'README.md'), 'utf8'));
    });
  });

  it('atif: one valid ATIF v1.7 trajectory per rollout, the simulated user embedded as a subagent', async () => {
    const dir = out('atif');
    const report = await exportRun(run.dir, opts({ format: 'atif', outDir: dir }));
    assert.equal(report.exported, run.rollouts.length);
    let n = 0;
    for (const split of readdirSync(join(dir, 'trajectories'))) {
      for (const f of readdirSync(join(dir, 'trajectories', split))) {
        type Result = { extra?: { exit_code?: number }; subagent_trajectory_ref?: { trajectory_id: string }[] };
        const traj = JSON.parse(readFileSync(join(dir, 'trajectories', split, f), 'utf8')) as { schema_version: string; trajectory_id: string; steps: { observation?: { results: Result[] } }[]; final_metrics: { total_steps: number }; extra: { coevolve: { split: string } }; subagent_trajectories?: { trajectory_id: string }[] };
        assert.deepEqual(checkAtifTrajectory(traj, f), []);
        assert.equal(traj.schema_version, 'ATIF-v1.7');
        assert.equal(traj.final_metrics.total_steps, traj.steps.length);
        assert.equal(traj.extra.coevolve.split, split);
        const results = traj.steps.flatMap((s) => s.observation?.results ?? []);
        assert.ok(results.some((r) => typeof r.extra?.exit_code === 'number'), 'command exit codes kept in the observation result extra');
        const ref = results.find((r) => r.subagent_trajectory_ref)?.subagent_trajectory_ref?.[0];
        assert.ok(ref, 'a message_user result references the user subagent');
        assert.equal(traj.subagent_trajectories?.[0]?.trajectory_id, ref.trajectory_id);
        n++;
      }
    }
    assert.equal(n, run.rollouts.length);
    const { header } = readCard(dir);
    const files = (header.configs as { data_files: { path: string }[] }[])[0]!.data_files.map((d) => d.path);
    assert.ok(files.every((p) => /^trajectories\/(train|validation|test)\/\*\.json$/.test(p)));
  });

  it('harbor: one complete task folder per environment with a task.toml that parses', async () => {
    const dir = out('harbor');
    const report = await exportRun(run.dir, opts({ format: 'harbor', outDir: dir, license: 'apache-2.0' }));
    assert.equal(report.exported, run.environments.length);
    for (const env of run.environments) {
      const task = join(dir, 'tasks', env.id);
      assert.deepEqual(checkHarborTask(task), []);
      for (const f of [...harborRequiredFiles, 'solution/solve.sh']) assert.ok(existsSync(join(task, f)), `${env.id}/${f}`);
      const toml = parseToml(readFileSync(join(task, 'task.toml'), 'utf8')) as Record<string, Record<string, unknown>>;
      assert.equal(toml.version as unknown, '1.0');
      assert.equal(toml.verifier!.timeout_sec, env.verifier.timeoutSec);
      // The environment's own agent timeout or none, never the run's wall clock (harborAgentTimeout.test.ts).
      assert.equal(toml.agent?.timeout_sec, env.sandbox.limits.agentTimeoutSec, `${env.id}: [agent] timeout_sec`);
      assert.equal(toml.environment!.memory_mb, env.sandbox.limits.memoryMb);
      assert.equal(toml.environment!.cpus, env.sandbox.limits.cpus);
      const meta = (toml.metadata as { coevolve: { hint?: string; user: { facts: { text: string }[] } } }).coevolve;
      assert.equal(meta.hint, env.hint);
      assert.deepEqual(meta.user.facts.map((f) => f.text), env.user.facts.map((f) => f.text));
      const dockerfile = readFileSync(join(task, 'environment/Dockerfile'), 'utf8');
      assert.match(dockerfile, new RegExp(`^FROM ${env.sandbox.image.replace(/[.]/g, '\\.')}$`, 'm'));
      assert.match(dockerfile, /^COPY workspace\/ \/workspace\/$/m);
      assert.equal((dockerfile.match(/^RUN /gm) ?? []).length, env.sandbox.setup.length);
      assert.equal(readFileSync(join(task, 'environment/workspace/app.log'), 'utf8'), env.sandbox.files[0]!.content);
      assert.equal(readFileSync(join(task, 'solution/solve.sh'), 'utf8'), env.oracle.script);
    }
    assert.equal(readCard(dir).header.license, 'apache-2.0');
  });

  it('assigns splits by lineage root: relatives never straddle splits', async () => {
    const dir = out('splits');
    // Skewed ratios make several splits non-empty even with few lineages.
    await exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: dir, splits: { train: 0.34, validation: 0.33, test: 0.33 } }));
    const splitOfRoot = new Map<string, string>();
    const splitsUsed = new Set<string>();
    for (const f of readdirSync(join(dir, 'data'))) {
      for (const rec of readJsonl(join(dir, 'data', f)) as { metadata: { split: string; environment: { id: string; lineage_root: string } } }[]) {
        const { split, environment } = rec.metadata;
        splitsUsed.add(split);
        assert.equal(environment.lineage_root, environment.id.replace(/-c\d+$/, ''), 'root is the seed of the chain');
        const before = splitOfRoot.get(environment.lineage_root);
        if (before) assert.equal(split, before, `lineage ${environment.lineage_root} in ${before} and ${split}`);
        splitOfRoot.set(environment.lineage_root, split);
      }
    }
    assert.equal(splitOfRoot.size, 6);
    assert.ok(splitsUsed.size >= 2, 'with 6 lineages and even ratios more than one split is used');
  });

  it('warns when every item is in train although the ratios ask for validation and test (issue 17, item 4)', async () => {
    // One lineage whose root hashes into train under the default ratios: everything lands there.
    const root = ['env-0', 'env-1', 'env-2', 'env-3', 'env-4', 'env-5'].find((id) => splitForRoot(id) === 'train')!;
    const lineage = run.rollouts.filter((r) => r.envId.replace(/-c\d+$/, '') === root);
    await appendCuration(run.dir, lineage.map((r, i) => ({ at: `2026-01-03T00:00:0${i % 10}.000Z`, target: { kind: 'rollout' as const, id: r.id }, action: 'accept' as const })));
    try {
      const r = await exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: out('train-only'), filter: 'accepted' }));
      assert.equal(r.exported, lineage.length);
      assert.deepEqual(r.perSplit, { train: lineage.length, validation: 0, test: 0 });
      const warning = r.warnings.find((w) => /validation and test are empty/.test(w));
      assert.match(warning ?? '', new RegExp(`^all ${r.exported} item\\(s\\) are in train.* 1 lineage \\(`));
      const printed: string[] = [];
      await runExport(run.dir, { format: 'chat-jsonl', out: out('train-only-cli'), filter: 'accepted', tag: [], family: [], generation: [], includeHintPlays: true }, { out: (t) => printed.push(t), cwd: tmp });
      assert.match(printed.join(''), /warning: all \d+ item\(s\) are in train; validation and test are empty/);
      // Asked for train only: nothing to warn about.
      const trainOnly = await exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: out('train-only-asked'), filter: 'accepted', splits: { train: 1, validation: 0, test: 0 } }));
      assert.equal(trainOnly.warnings.filter((w) => /in train/.test(w)).length, 0);
    } finally {
      rmSync(runLayout.curation(run.dir), { force: true });
    }
    assert.equal(splitWarning({ exported: 9, perSplit: { train: 6, validation: 3, test: 0 }, lineages: { train: 2, validation: 1, test: 0 } }, defaultSplitRatios), undefined, 'validation filled: no warning');
  });

  it('filters by curation, reward, tag, family and generation', async () => {
    const entries: CurationEntry[] = [
      { at: '2026-01-02T00:00:00.000Z', target: { kind: 'rollout', id: run.rollouts[0]!.id }, action: 'accept' },
      { at: '2026-01-02T00:00:01.000Z', target: { kind: 'rollout', id: run.rollouts[1]!.id }, action: 'accept' },
      { at: '2026-01-02T00:00:02.000Z', target: { kind: 'rollout', id: run.rollouts[1]!.id }, action: 'reject' },
      { at: '2026-01-02T00:00:03.000Z', target: { kind: 'environment', id: 'env-5' }, action: 'reject' },
      { at: '2026-01-02T00:00:04.000Z', target: { kind: 'rollout', id: run.rollouts[2]!.id }, action: 'label', label: 'gold' },
      { at: '2026-01-02T00:00:05.000Z', target: { kind: 'environment', id: 'env-0' }, action: 'accept' },
    ];
    await appendCuration(run.dir, entries);
    const dir = mkdtempSync(join(tmp, 'filters-'));
    const ex = (name: string, o: Partial<ExportOptions>) => exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: join(dir, name), ...o }));
    try {
      const accepted = await ex('accepted', { filter: 'accepted' });
      assert.equal(accepted.exported, 1);
      assert.equal(accepted.excluded['rejected by curation'], 1);

      const all = await ex('all', {});
      assert.equal(all.exported, run.rollouts.length - 1 - 3, 'minus the rejected rollout and the 3 rollouts of rejected env-5');
      assert.equal(all.excluded['environment rejected by curation'], 3);

      const good = run.rollouts.filter((r) => r.rewards.total >= 0.5 && r.envId !== 'env-5' && r.id !== run.rollouts[1]!.id).length;
      assert.equal((await ex('reward', { minReward: 0.5 })).exported, good);

      assert.equal((await ex('tag', { tags: ['gold'] })).exported, 1, 'only the labelled rollout');
      assert.equal((await ex('skill', { tags: ['clarification'] })).exported, run.rollouts.filter((r) => /^env-[024]/.test(r.envId) && r.id !== run.rollouts[1]!.id).length, 'skills of the environment count as tags');
      const fam = run.rollouts.filter((r) => run.environments.find((e) => e.id === r.envId)!.family === 'csv-report' && r.envId !== 'env-5').length;
      assert.equal((await ex('family', { families: ['csv-report'] })).exported, fam);
      assert.equal((await ex('gen', { generations: [2] })).exported, run.rollouts.filter((r) => r.generation === 2 && r.envId !== 'env-5').length);

      const harbor = await exportRun(run.dir, opts({ format: 'harbor', outDir: join(dir, 'harbor'), filter: 'accepted' }));
      assert.deepEqual(readdirSync(join(dir, 'harbor', 'tasks')), ['env-0']);
      assert.equal(harbor.exported, 1);
      const harborAll = await exportRun(run.dir, opts({ format: 'harbor', outDir: join(dir, 'harbor-all'), generations: [0] }));
      assert.equal(harborAll.exported, 5, 'six seeds, env-5 rejected');
    } finally {
      rmSync(runLayout.curation(run.dir), { force: true });
    }
  });

  it('removes duplicates across the export (same content, other ids and timestamps)', async () => {
    const w = RunWriter.create(join(tmp, 'dup-runs'), { runId: 'dup', name: 'dup', seed: 1, toolVersion: 't', startedAt: '2026-01-01T00:00:00.000Z', config: runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'dup', population: { builtinFamilies: ['x'] } }), roles: {} });
    const env = run.environments[0]!;
    const user = run.users[0]!;
    await w.writeEnvironment(env);
    const a = syntheticRollout(env, user, 0, 0, 1);
    const b = { ...syntheticRollout(env, user, 0, 1, 1), steps: syntheticRollout(env, user, 0, 1, 1).steps.map((s) => ({ ...s, timestamp: '2026-03-03T00:00:00.000Z', message: `  ${s.message.toUpperCase()} ` })) };
    const c = syntheticRollout(env, user, 0, 2, 2);
    for (const r of [a, b, c]) {
      await w.writeRollout(r);
      await w.append({ type: 'rollout.finished', summary: summarizeRollout(r) });
    }
    await w.close();
    const report = await exportRun(w.runDir, opts({ format: 'chat-jsonl', outDir: out('dup') }));
    assert.equal(report.selected, 3);
    assert.equal(report.duplicates, 1);
    assert.equal(report.exported, 2);
    const harbor = await exportRun(run.dir, opts({ format: 'harbor', outDir: out('dup-harbor') }));
    assert.equal(harbor.duplicates, 0);
  });

  describe('what every export leaves out unless asked (issue 11, item 10)', () => {
    const allFiles = (dir: string): string => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')).join('\n');

    it('hint plays are out by default: no HINT: system message reaches an SFT file, and the card counts them', async () => {
      const dir = out('no-hints');
      const r = await exportRun(run.dir, { format: 'chat-jsonl', outDir: dir, filter: 'all', now: fixedNow });
      const hints = run.rollouts.filter((x) => x.hint).length;
      assert.ok(hints > 0);
      assert.equal(r.excluded['hint play (the agent saw a privileged hint; --include-hint-plays to keep)'], hints);
      assert.equal(r.exported + r.duplicates, run.rollouts.length - hints);
      assert.doesNotMatch(allFiles(join(dir, 'data')), /HINT:/);
      const { body } = readCard(dir);
      assert.match(body, new RegExp(`## Left out\\n\\nRollouts of the run not in this dataset, by reason:\\n\\n- ${hints}: hint play`));
      assert.match(body, /Filters: .*hint plays left out/);
      const atif = out('no-hints-atif');
      await exportRun(run.dir, { format: 'atif', outDir: atif, filter: 'all', now: fixedNow });
      assert.doesNotMatch(allFiles(join(atif, 'trajectories')), /HINT:/);
    });

    it('--include-hint-plays keeps them and the card says so', async () => {
      const dir = out('with-hints');
      const r = await exportRun(run.dir, { format: 'chat-jsonl', outDir: dir, filter: 'all', now: fixedNow, includeHintPlays: true });
      assert.equal(r.excluded['hint play (the agent saw a privileged hint; --include-hint-plays to keep)'], undefined);
      assert.match(allFiles(join(dir, 'data')), /HINT:/);
      assert.match(readCard(dir).body, /hint plays included/);
    });

    async function mixedRun(): Promise<{ dir: string; ids: Record<string, string> }> {
      const w = RunWriter.create(join(tmp, 'mixed-runs'), { runId: 'mixed', name: 'mixed', seed: 1, toolVersion: 't', startedAt: '2026-01-01T00:00:00.000Z', config: runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'mixed', population: { builtinFamilies: ['x'] } }), roles: {} });
      const env = run.environments[0]!;
      const user = run.users[0]!;
      await w.writeEnvironment(env);
      const plain = syntheticRollout(env, user, 0, 0, 1);
      const proc = { ...syntheticRollout(env, user, 0, 1, 2), sandbox: { backend: 'process', host: 'local', image: 'x' } };
      // A run from before the summary's mark: only the record says it was the process backend.
      const old = { ...syntheticRollout(env, user, 0, 3, 4), sandbox: { backend: 'process', host: 'local', image: 'x' } };
      const infra = { ...syntheticRollout(env, user, 0, 4, 5), status: 'error' as const, error: 'sandbox host lost' };
      for (const r of [plain, proc, old, infra]) {
        await w.writeRollout(r);
        const summary = summarizeRollout(r);
        if (r === old) delete summary.unsandboxed;
        await w.append({ type: 'rollout.finished', summary });
      }
      await w.close();
      return { dir: w.runDir, ids: { plain: plain.id, proc: proc.id, old: old.id, infra: infra.id } };
    }

    it('unsandboxed rollouts are out unless --include-unsandboxed; infrastructure errors always', async () => {
      const { dir } = await mixedRun();
      const unsandboxed = 'unsandboxed process backend (--include-unsandboxed to keep)';
      const def = await exportRun(dir, { format: 'chat-jsonl', outDir: out('mixed-default'), filter: 'all', now: fixedNow });
      assert.equal(def.exported, 1);
      assert.equal(def.excluded[unsandboxed], 2, 'the marked summary and the old record');
      assert.equal(def.excluded['infrastructure error'], 1);
      assert.match(readCard(out('mixed-default')).body, /- 2: unsandboxed process backend[^]*- 1: infrastructure error/);
      const asked = await exportRun(dir, { format: 'chat-jsonl', outDir: out('mixed-asked'), filter: 'all', now: fixedNow, includeUnsandboxed: true, includeHintPlays: true });
      assert.equal(asked.exported, 3);
      assert.equal(asked.excluded['infrastructure error'], 1, 'never exported');
      const harbor = await exportRun(dir, { format: 'harbor', outDir: out('mixed-harbor'), filter: 'all', now: fixedNow });
      assert.deepEqual(harbor.statsExcluded, { [unsandboxed]: 1, 'infrastructure error': 1 }, 'the old record is only known unsandboxed from its file, which harbor does not read');
      const index = readJsonl(join(out('mixed-harbor'), 'data', `${Object.keys(harbor.perSplit).find((k) => harbor.perSplit[k as 'train'] > 0)}.jsonl`))[0] as { rollouts: number };
      assert.equal(index.rollouts, 2);
      assert.match(readCard(out('mixed-harbor')).body, /Rollouts not counted in the environments' play statistics/);
    });

    it("harbor's play statistics leave out a play whose verification was cut (no outcome, not a failure)", async () => {
      const w = RunWriter.create(join(tmp, 'cut-runs'), { runId: 'cut', name: 'cut', seed: 1, toolVersion: 't', startedAt: '2026-01-01T00:00:00.000Z', config: runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'cut', population: { builtinFamilies: ['x'] } }), roles: {} });
      const env = run.environments[0]!;
      const user = run.users[0]!;
      await w.writeEnvironment(env);
      const passed = { ...syntheticRollout(env, user, 0, 0, 1), success: true };
      const cut = { ...syntheticRollout(env, user, 0, 1, 2), success: false, unfinished: { step: 'verification' as const, reason: 'wall_clock' as const, note: 'cut' } };
      for (const r of [passed, cut]) {
        await w.writeRollout(r);
        await w.append({ type: 'rollout.finished', summary: summarizeRollout(r) });
      }
      await w.close();
      const dir = out('cut-harbor');
      const harbor = await exportRun(w.runDir, { format: 'harbor', outDir: dir, filter: 'all', now: fixedNow });
      assert.deepEqual(harbor.statsExcluded, { "no outcome (the run's wall clock or a context overflow cut its verification or rating)": 1 });
      const split = Object.keys(harbor.perSplit).find((k) => harbor.perSplit[k as 'train'] > 0)!;
      const index = readJsonl(join(dir, 'data', `${split}.jsonl`))[0] as { rollouts: number; success_rate: number };
      assert.equal(index.rollouts, 1);
      assert.equal(index.success_rate, 1, 'the cut play is not a failure');
    });

    it('the CLI passes --include-hint-plays and --include-unsandboxed through and prints what was left out', async () => {
      const { dir } = await mixedRun();
      let text = '';
      const io = { out: (t: string) => { text += t; }, cwd: tmp };
      const base = { format: 'chat-jsonl' as const, filter: 'all' as const, tag: [], family: [], generation: [] };
      await runExport(dir, { ...base, out: 'cli-default' }, io);
      assert.match(text, /left out: 2 unsandboxed process backend \(--include-unsandboxed to keep\); 1 infrastructure error/);
      text = '';
      await runExport(dir, { ...base, out: 'cli-asked', includeUnsandboxed: true, includeHintPlays: true }, io);
      assert.match(text, /exported 3 of 4 rollouts/);
    });
  });

  it('refuses a non-empty output folder unless forced, and then replaces only its own files', async () => {
    const dir = out('busy');
    await exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: dir }));
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await assert.rejects(exportRun(run.dir, opts({ format: 'chat-jsonl', outDir: dir })), /not empty.*--force/);
    await exportRun(run.dir, opts({ format: 'atif', outDir: dir, force: true }));
    assert.ok(!existsSync(join(dir, 'data')));
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine');
  });
});
