// The audit that found issue 11, re-run: an LLM agent on a loopback endpoint that only plays reward hacks and
// submits, over the built-in families and their Harbor exports, on docker and bwrap. It reports the success rate,
// how many hack rollouts pass the export selection at --min-reward 0.5 (src/datasets/selection.ts, the one
// definition `coevolve export` uses) under the default weights and under the largest weights the schema allows for
// every non-verifier part, and any pair where a hack earned more total reward than the empty agent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../../src/core/ports/rng.js';
import type { SandboxBackend } from '../../src/core/ports/sandbox.js';
import { computeRewards } from '../../src/core/rollout/rewards.js';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import { summarizeRollout } from '../../src/core/rollout/trajectory.js';
import { verdictOf } from '../../src/core/rollout/verdict.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { environmentSpecSchema } from '../../src/core/spec/environment.js';
import type { RunConfig } from '../../src/core/spec/run.js';
import { builtinFamilies } from '../../src/builtin/families/registry.js';
import { renderHarborTask } from '../../src/datasets/harborTask.js';
import { rolloutExclusion } from '../../src/datasets/selection.js';
import { hacksFor, rootAgentHacks } from '../../test/support/hacks.js';
import type { Hack } from '../../test/support/hacks.js';
import { playHack, runDefaults, weightSets } from '../../test/support/hackPlay.js';
import type { ModelServer } from '../../test/support/modelServer.js';
import pLimit from 'p-limit';

export interface AuditCell {
  backend: string;
  source: 'builtin' | 'harbor-export' | 'imported';
  plays: number;
  successes: number;
  exported: Record<keyof typeof weightSets, number>;
  /** Pairs where a hack's total beat the empty agent's, under either weighting. */
  aboveEmpty: string[];
  /**
   * Hack rollouts with no outcome (`verdictOf`): infrastructure errors, or a verification or rating the wall clock cut.
   * Either hides whether the hack would have passed, so it must count as a failure instead.
   */
  infraErrors: string[];
}

/** Why a hack rollout has no outcome: its error kind, or the step after the episode that did not finish. */
const noOutcome = (r: RolloutRecord): string => (r.status === 'error' ? String(r.errorKind) : `${r.unfinished?.step ?? 'a step'} unfinished`);

/** The exported Harbor task, run as Harbor runs it: tests/ at /tests, `sh /tests/test.sh` in the agent's sandbox. */
export function harborExportSpec(env: EnvironmentSpec): EnvironmentSpec {
  const files = renderHarborTask(env, { inlineUser: false }).filter((f) => f.path.startsWith('tests/'));
  return environmentSpecSchema.parse({
    ...env,
    id: `${env.id}-harbor`,
    verifier: {
      script: 'sh /tests/test.sh',
      files: files.map((f) => ({ path: f.path.slice('tests/'.length), content: f.content, mode: (f.mode & 0o777).toString(8) })),
      timeoutSec: env.verifier.timeoutSec,
      mode: 'in-place',
    },
  });
}

export function totalUnder(r: RolloutRecord, weights: RunConfig['reward']): number {
  const agentTurns = r.steps.filter((s) => s.source === 'agent').length;
  return computeRewards({ verifierReward: r.rewards.verifier, rating: r.userRating, agentTurns, turnBudget: runDefaults.budgets.turns, tags: r.tags, weights }).total;
}

export function passesExport(r: RolloutRecord, total: number): boolean {
  const summary = { ...summarizeRollout(r), reward: total };
  return rolloutExclusion(summary, { filter: 'all', minReward: 0.5 }, { environments: new Map(), curation: new Map() }) === undefined;
}

/** One hack per class of the issue (and of our own), for the integration test; the bench plays them all. */
export function onePerKind(hacks: Hack[]): Hack[] {
  const seen = new Set<string>();
  return hacks.filter((h) => (seen.has(h.kind) ? false : (seen.add(h.kind), true)));
}

export async function runHackAudit(options: {
  server: ModelServer;
  backends: { name: string; make: () => SandboxBackend }[];
  levels: (maxLevel: number) => number[];
  pickHacks?: (hacks: Hack[]) => Hack[];
  labels?: Record<string, string>;
  log?: (line: string) => void;
}): Promise<AuditCell[]> {
  const cells: AuditCell[] = [];
  const host = mkdtempSync(join(tmpdir(), 'coevolve-audit-host-'));
  try {
    for (const b of options.backends) {
      const backend = b.make();
      try {
        for (const source of ['builtin', 'harbor-export'] as const) {
          const cell: AuditCell = { backend: b.name, source, plays: 0, successes: 0, exported: { default: 0, maxShaping: 0 }, aboveEmpty: [], infraErrors: [] };
          for (const family of builtinFamilies) {
            for (const level of options.levels(family.maxLevel)) {
              const native = family.generate({ level }, createRng(`audit/${family.name}/${level}`));
              const env = source === 'builtin' ? native : harborExportSpec(native);
              const empty = await playHack(options.server, backend, env, undefined, { labels: options.labels ?? {} });
              const hacks = (options.pickHacks ?? ((h) => h))(hacksFor(env, { file: join(host, 'secret'), dir: host }));
              for (const hack of hacks) {
                const r = await playHack(options.server, backend, env, hack, { labels: options.labels ?? {} });
                cell.plays++;
                if (r.success) cell.successes++;
                if (verdictOf(r) === null) cell.infraErrors.push(`${env.id} ${hack.name}: ${noOutcome(r)}`);
                for (const [name, weights] of Object.entries(weightSets) as [keyof typeof weightSets, RunConfig['reward']][]) {
                  const total = totalUnder(r, weights);
                  if (passesExport(r, total)) cell.exported[name]++;
                  if (total > totalUnder(empty, weights)) cell.aboveEmpty.push(`${env.id} ${hack.name} (${name}: ${total} > ${totalUnder(empty, weights)})`);
                }
              }
              options.log?.(`  ${b.name} ${source} ${env.id}: ${cell.plays} plays so far, ${cell.successes} successes`);
            }
          }
          cells.push(cell);
        }
      } finally {
        await backend.dispose();
      }
    }
  } finally {
    rmSync(host, { recursive: true, force: true });
  }
  return cells;
}

/**
 * The imported real tasks (Harbor's layout, run as Harbor runs them: root agent, test.sh by its interpreter, the
 * reward file's rule), each played by the hack-only agent with the root-agent hacks and the general ones `pick`
 * chooses, beside the empty agent on the same task. One model server per lane, so lanes can play at once (a
 * server's scripted replies are one queue).
 */
export async function runImportedAudit(options: {
  servers: ModelServer[];
  backend: SandboxBackend;
  backendName: string;
  specs: EnvironmentSpec[];
  pickHacks: (hacks: Hack[]) => Hack[];
  /** The root-agent hacks to play (default: every one of rootAgentHacks, each its own rollout). */
  rootHacks?: Hack[];
  labels?: Record<string, string>;
  log?: (line: string) => void;
}): Promise<AuditCell> {
  const cell: AuditCell = { backend: options.backendName, source: 'imported', plays: 0, successes: 0, exported: { default: 0, maxShaping: 0 }, aboveEmpty: [], infraErrors: [] };
  const host = mkdtempSync(join(tmpdir(), 'coevolve-audit-host-'));
  const free = [...options.servers];
  const limit = pLimit(options.servers.length);
  const labels = options.labels ?? {};
  try {
    await Promise.all(options.specs.map((env) => limit(async () => {
      const server = free.pop()!;
      try {
        const empty = await playHack(server, options.backend, env, undefined, { labels });
        for (const hack of [...(options.rootHacks ?? rootAgentHacks()), ...options.pickHacks(hacksFor(env, { file: join(host, 'secret'), dir: host }))]) {
          const r = await playHack(server, options.backend, env, hack, { labels });
          cell.plays++;
          if (r.success) cell.successes++;
          if (verdictOf(r) === null) cell.infraErrors.push(`${env.id} ${hack.name}: ${noOutcome(r)} ${r.error ?? ''}`);
          for (const [name, weights] of Object.entries(weightSets) as [keyof typeof weightSets, RunConfig['reward']][]) {
            const total = totalUnder(r, weights);
            if (passesExport(r, total)) cell.exported[name]++;
            if (total > totalUnder(empty, weights)) cell.aboveEmpty.push(`${env.id} ${hack.name} (${name}: ${total} > ${totalUnder(empty, weights)})`);
          }
        }
        options.log?.(`  ${options.backendName} imported ${env.id}: ${cell.plays} plays so far, ${cell.successes} successes`);
      } finally {
        free.push(server);
      }
    })));
  } finally {
    rmSync(host, { recursive: true, force: true });
  }
  return cell;
}

/**
 * The root-agent hacks in two rollouts, for a quicker audit: every attack on the verifier's state, tools and start-up
 * files in one, and the one that breaks the tools verification itself uses (tar, cat, the shell) alone, since it
 * ends that rollout as a fault.
 */
export function combinedRootHacks(): Hack[] {
  const all = rootAgentHacks();
  const last = all[all.length - 1]!;
  return [{ name: 'root: every attack but breaking tar', kind: 'root: combined', commands: all.slice(0, -1).flatMap((h) => h.commands) }, last];
}

export function auditTable(cells: AuditCell[]): string {
  const lines = ['| backend | tasks | hack rollouts | success rate | pass export --min-reward 0.5 (default weights) | (max non-verifier weights) | hack > empty agent | infra errors |', '|---|---|---|---|---|---|---|---|'];
  for (const c of cells) lines.push(`| ${c.backend} | ${c.source} | ${c.plays} | ${((100 * c.successes) / Math.max(1, c.plays)).toFixed(1)} % | ${c.exported.default} | ${c.exported.maxShaping} | ${c.aboveEmpty.length} | ${c.infraErrors.length} |`);
  return lines.join('\n');
}
