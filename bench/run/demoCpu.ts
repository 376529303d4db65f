// The demo's wall and CPU time (user + system of the whole process tree, from a cpuacct cgroup around the CLI) on
// bwrap, for this tree and for a baseline git ref built in a temporary worktree, interleaved run by run in the same
// bench run, next to a fixed reference workload (a busybox pipeline in a bare bwrap) whose CPU shows what the
// machine's state costs any process tree at the time. Also checks that both give the same report and the same
// outcome for every rollout (same seed), which is the point: only the cost of a play may change, never a result.
//   node --import=tsx bench/run/run.ts --demo-cpu [--baseline REF] [--generations N] [--repeat N]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rootfsDir } from '../../src/sandbox/images/baseImages.js';

const acctRoot = '/sys/fs/cgroup/cpuacct';

export interface DemoCpuRun {
  label: string;
  wallSec: number;
  /** User and system CPU seconds of the CLI and every process it started; undefined without a cpuacct cgroup. */
  userSec?: number;
  sysSec?: number;
  loadStart: string;
  loadEnd: string;
  /** The report with the run id taken out, and every rollout's id → status/success/rewards. */
  report: string;
  outcomes: Map<string, string>;
}

function load(): string {
  return loadavg()[0]!.toFixed(2);
}

/** Runs argv in a new cpuacct cgroup (when this process may make one) and returns wall and CPU seconds. */
export function cpuOf(label: string, argv: string[], cwd: string): { wallSec: number; userSec?: number; sysSec?: number; stderr: string } {
  const group = join(acctRoot, `coevolve-bench-${process.pid}-${label.replace(/\W+/g, '-')}`);
  let acct = false;
  try {
    mkdirSync(group);
    acct = true;
  } catch {
    // not root, or no cpuacct hierarchy: wall time only
  }
  const t = performance.now();
  // The shell joins the group and execs the command, so the group holds the whole tree from its first process.
  const wrapped = acct ? ['/bin/sh', '-c', `echo $$ > ${group}/cgroup.procs && exec "$@"`, 'sh', ...argv] : argv;
  const r = spawnSync(wrapped[0]!, wrapped.slice(1), { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const wallSec = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${label} failed (exit ${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  if (!acct) return { wallSec, stderr: r.stderr };
  const stat = readFileSync(join(group, 'cpuacct.stat'), 'utf8');
  // cpuacct.stat counts USER_HZ ticks (100 per second on Linux).
  const userSec = Number(/user (\d+)/.exec(stat)![1]) / 100;
  const sysSec = Number(/system (\d+)/.exec(stat)![1]) / 100;
  removeGroup(group);
  return { wallSec, userSec, sysSec, stderr: r.stderr };
}

/**
 * Removes an emptied cgroup. The namespaces' last processes (bwrap's init of a pid namespace) are reaped by the
 * kernel a moment after the command returned, and rmdir fails with EBUSY until then: retried for up to 5 s.
 */
function removeGroup(group: string): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; ; i++) {
    try {
      rmdirSync(group);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || i >= 100) throw err;
      Atomics.wait(pause, 0, 0, 50);
    }
  }
}

/** A fixed workload: the csv pipeline the built-in agent writes, 30 times in one bare bwrap on the busybox root. */
export function referenceWorkload(): { wallSec: number; userSec?: number; sysSec?: number } {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-bench-ref-'));
  mkdirSync(join(dir, 'data'));
  const rows = ['# exported', 'date,region,product,units,revenue'];
  for (let i = 0; i < 60; i++) rows.push(`2024-02-${String((i % 28) + 1).padStart(2, '0')},r${i % 3},prod${i % 7},${(i * 37) % 50 + 1},${(i * 91) % 900 + 10}`);
  writeFileSync(join(dir, 'data', 'sales.csv'), `${rows.join('\n')}\n`);
  const script = [
    'mkdir -p .work "$(dirname out/q.csv)"',
    "cat data/sales.csv | grep -v '^#' | grep -v '^date,' | cut -d, -f3,4 | tr , ' ' | LC_ALL=C sort | { prev=; t=0; while read -r g v; do if [ -n \"$prev\" ] && [ \"$g\" != \"$prev\" ]; then echo \"$prev,$t\"; t=0; fi; prev=$g; t=$((t + v)); done; [ -z \"$prev\" ] || echo \"$prev,$t\"; } | LC_ALL=C sort -t, -k2,2nr -k1,1 > .work/rows.txt",
    "{ printf '%s\\n' product,units; cat .work/rows.txt; } > out/q.csv",
  ].join('\n');
  writeFileSync(join(dir, 'cmd.sh'), script);
  const root = rootfsDir('busybox');
  try {
    return cpuOf('reference', ['bwrap', '--ro-bind', root, '/', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', dir, '/workspace', '--chdir', '/workspace',
      '--unshare-all', '--unshare-user', '--uid', '65534', '--gid', '65534', '--', '/bin/sh', '-c', 'i=0; while [ $i -lt 30 ]; do /bin/sh -c "$(cat cmd.sh)" || exit 1; i=$((i + 1)); done'], dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A built copy of `ref` in a temporary worktree (node_modules linked from this tree's), removed by the returned function. */
export function buildBaseline(ref: string): { cli: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-bench-baseline-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { stdio: 'ignore' });
  const remove = (): void => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const m of ['node_modules', join('tools', 'node_modules')]) if (existsSync(resolve(m)) && !existsSync(join(dir, m))) symlinkSync(resolve(m), join(dir, m));
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, stdio: 'ignore' });
    return { cli: join(dir, 'dist', 'cli.js'), remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** One demo run of `cli` (bwrap, the demo config of this tree), measured; its report and outcomes kept for comparison. */
export function demoRun(label: string, cli: string, generations: number): DemoCpuRun {
  const out = mkdtempSync(join(tmpdir(), 'coevolve-bench-democpu-'));
  try {
    const loadStart = load();
    const m = cpuOf(label, [process.execPath, cli, 'run', resolve('environments/demo.run.yaml'), '--backend', 'bwrap', '--generations', String(generations), '--out', out], process.cwd());
    if (/command channel is not available/.test(m.stderr)) throw new Error(`${label}: the demo fell back to one bwrap per command: ${m.stderr.slice(-500)}`);
    const runDir = join(out, readdirSync(out)[0]!);
    const report = execFileSync(process.execPath, [resolve('dist/cli.js'), 'report', runDir], { encoding: 'utf8' }).replace(/^run [0-9a-f]+ /m, 'run <id> ');
    return { label, ...m, loadStart, loadEnd: load(), report, outcomes: outcomesOf(runDir) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function outcomesOf(runDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const root = join(runDir, 'rollouts');
  for (const g of readdirSync(root)) {
    for (const f of readdirSync(join(root, g))) {
      const r = JSON.parse(readFileSync(join(root, g, f), 'utf8')) as { id: string; status: string; success: boolean; rewards: unknown; steps: { observation?: unknown }[] };
      // The observations carry every command's output: equal observations mean the agent saw the same sandbox.
      // Durations and file times (`ls -l` prints when the sandbox's files were written) differ from run to run.
      const text = JSON.stringify([r.status, r.success, r.rewards, r.steps.map((s) => s.observation ?? null)], (k, v: unknown) => (k === 'durationMs' ? undefined : v));
      out.set(r.id, text.replace(/[A-Z][a-z]{2} +\d{1,2} +(\d{2}:\d{2}|\d{4})/g, '<time>'));
    }
  }
  return out;
}

/** Whether two runs gave the same report and the same rollouts with the same outcomes and observations. */
export function sameResults(a: DemoCpuRun, b: DemoCpuRun): { same: boolean; why: string } {
  if (a.report !== b.report) return { same: false, why: 'the reports differ' };
  if (a.outcomes.size !== b.outcomes.size) return { same: false, why: `${a.outcomes.size} vs ${b.outcomes.size} rollouts` };
  for (const [id, v] of a.outcomes) if (b.outcomes.get(id) !== v) return { same: false, why: `rollout ${id} differs` };
  return { same: true, why: `same report, same ${a.outcomes.size} rollouts (status, success, rewards, every observation)` };
}
