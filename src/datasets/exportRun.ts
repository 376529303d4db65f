import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import pLimit from 'p-limit';
import { dirname, join, resolve, sep } from 'node:path';
import { isUnsandboxed, type RolloutRecord, type RolloutSummary } from '../core/rollout/trajectory.js';
import { verdictOf } from '../core/rollout/verdict.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { toolVersion } from '../core/version.js';
import { curationKey, type CurationState } from '../store/curation.js';
import { toAtifTrajectory } from './atifExport.js';
import { toChatJsonl } from './chatJsonl.js';
import { TokenExport, withAtifTokens } from './tokenExport.js';
import { contentHash } from './contentHash.js';
import { endingsCardSection, renderDatasetCard, type EndingCounts, type ExportFormat } from './datasetCard.js';
import { renderHarborTask, type HarborTaskOptions, type TaskFile } from './harborTask.js';
import { lineageRoot } from './lineage.js';
import { folderPathsProblem, outputPathProblem } from './outPaths.js';
import { rolloutContent, rolloutMetadata, type RolloutMetadata } from './rolloutMetadata.js';
import { openRunSource, type RunSource } from './runSource.js';
import { countsTowardEnvironment, defaultExclusion, environmentExclusion, excludedByDefault, rolloutExclusion, type DatasetFilters, type EnvironmentPlayStats, type SelectionContext, unsandboxedByConfig } from './selection.js';
import { RunFileError } from '../store/runFiles.js';
import { defaultSplitRatios, splitForRoot, splitNames, type SplitName, type SplitRatios } from './splits.js';

export const exportFormats = ['chat-jsonl', 'atif', 'harbor'] as const;

export interface ExportOptions extends DatasetFilters {
  format: ExportFormat;
  outDir: string;
  splits?: SplitRatios;
  /** chat-jsonl: per-assistant-message `weight`. */
  weights?: boolean;
  license?: string;
  /** harbor: FROM of every Dockerfile instead of each environment's sandbox image. */
  baseImage?: string;
  /** harbor: append the user's request and facts to instruction.md. */
  inlineUser?: boolean;
  /** Replace the files of an earlier export in outDir. */
  force?: boolean;
  /** Fixed clock for reproducible dataset cards (tests). */
  now?: Date;
}

export interface ExportReport {
  format: ExportFormat;
  outDir: string;
  considered: number;
  selected: number;
  duplicates: number;
  exported: number;
  perSplit: Record<SplitName, number>;
  lineages: Record<SplitName, number>;
  /** Why items were left out, with counts. */
  excluded: Record<string, number>;
  /** Harbor: rollouts left out of the environments' play statistics (hint plays, unsandboxed, errors), with counts. */
  statsExcluded: Record<string, number>;
  files: string[];
  warnings: string[];
}

export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportError';
  }
}

const zeroSplits = (): Record<SplitName, number> => ({ train: 0, validation: 0, test: 0 });

/**
 * A warning when every item landed in train although the ratios ask for validation or test: splits go by lineage
 * (a root environment and all its descendants stay in one split), so a run with few lineages can fill only train,
 * and a trainer given this folder would have nothing to validate or test on without saying so.
 */
export function splitWarning(r: Pick<ExportReport, 'exported' | 'perSplit' | 'lineages'>, ratios: SplitRatios): string | undefined {
  if (r.exported === 0 || r.perSplit.validation + r.perSplit.test > 0 || ratios.validation + ratios.test === 0) return undefined;
  const n = r.lineages.train;
  return `all ${r.exported} item(s) are in train; validation and test are empty: splits go by lineage and the export has ${n} lineage${n === 1 ? '' : 's'} (curate or export more lineages, or pass --splits to choose the ratios)`;
}
const ownedOutputs = ['README.md', 'data', 'trajectories', 'tasks'];

/** Exports one run directory as a dataset folder; see ExportOptions. */
export async function exportRun(runDir: string, options: ExportOptions): Promise<ExportReport> {
  const source = openRunSource(runDir);
  prepareOutDir(options.outDir, options.force ?? false);
  const ctx = new ExportContext(source, options);
  try {
    if (options.format === 'harbor') exportHarbor(ctx);
    else exportRollouts(ctx);
    ctx.writeCard();
  } finally {
    await ctx.flushed();
  }
  return ctx.report;
}

function prepareOutDir(outDir: string, force: boolean): void {
  if (existsSync(outDir)) {
    const present = readdirSync(outDir);
    if (present.length > 0 && !force) {
      throw new ExportError(`${outDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', ...' : ''}); choose another --out or pass --force to replace an earlier export`);
    }
    // Only what an export writes is removed, so a mistyped --out never wipes unrelated files.
    for (const name of ownedOutputs) rmSync(join(outDir, name), { recursive: true, force: true });
  }
  mkdirSync(outDir, { recursive: true });
}

class ExportContext {
  readonly report: ExportReport;
  private readonly rootMemo = new Map<string, string>();
  private readonly roots: Record<SplitName, Set<string>> = { train: new Set(), validation: new Set(), test: new Set() };
  private readonly seen = new Set<string>();
  private readonly families = new Set<string>();
  private readonly tagsSeen = new Set<string>();
  private successful = 0;
  /** The exported rollouts' endings beyond `status`, for the card. */
  private readonly endings: EndingCounts = { truncated: {}, unfinished: {} };

  /** Token-level data of the exported rollouts (chat-jsonl), next to the chat lines. */
  readonly tokens: TokenExport;

  constructor(readonly source: RunSource, readonly options: ExportOptions) {
    this.tokens = new TokenExport(options.outDir);
    this.report = {
      format: options.format, outDir: options.outDir, considered: 0, selected: 0, duplicates: 0, exported: 0,
      perSplit: zeroSplits(), lineages: zeroSplits(), excluded: {}, statsExcluded: {}, files: [], warnings: [...source.problems],
    };
    if (source.curation.badLines.length > 0) this.report.warnings.push(`curation.jsonl: ${source.curation.badLines.length} unreadable line(s) skipped (first at line ${source.curation.badLines[0]!.line}: ${source.curation.badLines[0]!.error})`);
  }

  get selection(): SelectionContext {
    return { environments: this.source.environments, curation: this.source.curation.states, unsandboxed: (s) => this.unsandboxedBefore(s) };
  }

  /**
   * Runs before the summary's `unsandboxed` mark: a rollout counts as unsandboxed when the run was configured for
   * the process backend (chat-jsonl and atif also check each record they read).
   */
  private unsandboxedBefore(s: RolloutSummary): boolean {
    return unsandboxedByConfig(this.source.manifest)(s);
  }

  exclude(reason: string): void {
    this.report.excluded[reason] = (this.report.excluded[reason] ?? 0) + 1;
  }

  curation(kind: 'rollout' | 'environment', id: string): CurationState | undefined {
    return this.source.curation.states.get(curationKey({ kind, id }));
  }

  splitOf(envId: string): { root: string; split: SplitName } {
    const root = lineageRoot(envId, this.source.environments, this.rootMemo);
    const split = splitForRoot(root, this.options.splits ?? defaultSplitRatios);
    this.roots[split].add(root);
    return { root, split };
  }

  /** True the first time a content hash is seen; later copies count as duplicates. */
  firstOf(content: unknown): boolean {
    const h = contentHash(content);
    if (this.seen.has(h)) {
      this.report.duplicates++;
      return false;
    }
    this.seen.add(h);
    return true;
  }

  counted(split: SplitName, env: EnvironmentSpec | undefined, tags: readonly string[], success?: boolean): void {
    this.report.exported++;
    this.report.perSplit[split]++;
    if (env) this.families.add(env.family);
    for (const t of tags) this.tagsSeen.add(t);
    if (success) this.successful++;
  }

  /** Counts an exported rollout's truncation reason and unfinished step, when it has them. */
  countEnding(m: RolloutMetadata): void {
    if (m.truncation_reason) this.endings.truncated[m.truncation_reason] = (this.endings.truncated[m.truncation_reason] ?? 0) + 1;
    if (m.unfinished) {
      const key = `${m.unfinished.step}: ${m.unfinished.reason}`;
      this.endings.unfinished[key] = (this.endings.unfinished[key] ?? 0) + 1;
    }
  }

  private readonly madeDirs = new Map<string, Promise<unknown>>();
  // Thousands of small files (ATIF, Harbor folders): writes overlap with building the next item instead of
  // blocking on each open/write/close in turn.
  private readonly limit = pLimit(16);
  private readonly pending: Promise<void>[] = [];

  private readonly written = new Set<string>();

  writeFile(rel: string, content: string, mode?: number): void {
    // Names come from the run directory (ids, file paths): whatever got past the readers' checks, nothing is
    // written outside --out, no file twice, and (flag "wx") never through a link or over a file already there.
    const path = resolve(this.options.outDir, rel);
    const why = outputPathProblem(rel) ?? (this.written.has(rel) ? 'is written twice' : undefined);
    if (why || !path.startsWith(resolve(this.options.outDir) + sep)) throw new ExportError(`refusing to write ${JSON.stringify(rel)}: it ${why ?? `leads outside ${this.options.outDir}`}`);
    this.written.add(rel);
    const dir = dirname(path);
    let made = this.madeDirs.get(dir);
    if (!made) {
      made = mkdir(dir, { recursive: true });
      this.madeDirs.set(dir, made);
    }
    const dirReady = made;
    this.pending.push(this.limit(async () => {
      await dirReady;
      await writeFile(path, content, { flag: 'wx' });
      if (mode !== undefined) await chmod(path, mode);
    }));
    this.report.files.push(rel);
  }

  /** Resolves when every file is written; rejects with the first write error. */
  async flushed(): Promise<void> {
    await Promise.all(this.pending);
  }

  filtersText(): string[] {
    const o = this.options;
    const f = [o.filter === 'accepted' ? 'accepted by curation only' : 'everything not rejected by curation'];
    if (o.minReward !== undefined) f.push(`reward >= ${o.minReward}`);
    if (o.tags?.length) f.push(`tag in {${o.tags.join(', ')}}`);
    if (o.families?.length) f.push(`family in {${o.families.join(', ')}}`);
    if (o.generations?.length) f.push(`generation in {${o.generations.join(', ')}}`);
    if (o.format !== 'harbor') f.push('rollouts that ended in an infrastructure error are never exported');
    f.push(o.includeHintPlays ? 'hint plays included (their system message carries the privileged hint)' : 'hint plays left out');
    f.push(o.includeUnsandboxed ? 'rollouts of the unsandboxed process backend included' : 'rollouts of the unsandboxed process backend left out');
    return f;
  }

  writeCard(): void {
    const r = this.report;
    for (const s of splitNames) r.lineages[s] = this.roots[s].size;
    const lopsided = splitWarning(r, this.options.splits ?? defaultSplitRatios);
    if (lopsided) r.warnings.push(lopsided);
    const dataFiles: Partial<Record<SplitName, string>> = {};
    for (const s of splitNames) {
      if (r.perSplit[s] === 0) continue;
      dataFiles[s] = this.options.format === 'atif' ? `trajectories/${s}/*.json` : `data/${s}.jsonl`;
    }
    const m = this.source.manifest;
    const card = renderDatasetCard({
      format: this.options.format,
      runName: m.name,
      runId: m.runId,
      license: this.options.license ?? 'other',
      dataFiles,
      counts: {
        considered: r.considered, selected: r.selected, duplicates: r.duplicates, exported: r.exported, perSplit: r.perSplit, lineages: r.lineages,
        ...(this.options.format === 'harbor' ? {} : { successful: this.successful }),
      },
      filters: this.filtersText(),
      excluded: r.excluded,
      ...(this.options.format === 'harbor' ? { statsExcluded: r.statsExcluded } : {}),
      families: [...this.families].sort(),
      tags: [...this.tagsSeen].filter((t) => /^[a-z0-9][a-z0-9_-]*$/.test(t)).sort().slice(0, 20),
      generatedAt: (this.options.now ?? new Date()).toISOString(),
      toolVersion,
      sections: [...(this.options.format === 'harbor' ? [] : endingsCardSection(this.options.format, this.endings)), ...this.tokens.cardSection()],
    });
    this.writeFile('README.md', card);
  }
}

// ---------------------------------------------------------------- rollouts (chat-jsonl, atif)

function exportRollouts(ctx: ExportContext): void {
  const { source, options } = ctx;
  const writers = new Map<SplitName, JsonlWriter>();
  let missingEnv = 0;
  try {
    for (const summary of source.rollouts) {
      ctx.report.considered++;
      const why = rolloutExclusion(summary, options, ctx.selection);
      if (why) {
        ctx.exclude(why);
        continue;
      }
      let rollout: RolloutRecord;
      try {
        rollout = source.readRollout(summary);
      } catch (err) {
        ctx.report.warnings.push(`rollout ${summary.id}: ${err instanceof RunFileError ? err.short : err instanceof Error ? err.message : String(err)}; skipped`);
        ctx.exclude('rollout file unreadable');
        continue;
      }
      // Records before the summary's mark: the record says which backend played it.
      if (!options.includeUnsandboxed && isUnsandboxed(rollout)) {
        ctx.exclude(excludedByDefault.unsandboxed);
        continue;
      }
      ctx.report.selected++;
      if (!ctx.firstOf(rolloutContent(rollout))) continue;
      const env = source.environments.get(rollout.envId);
      if (!env) missingEnv++;
      const { root, split } = ctx.splitOf(rollout.envId);
      const cur = ctx.curation('rollout', rollout.id);
      const metadata = rolloutMetadata(rollout, { env, lineageRoot: root, split, labels: cur?.labels ?? [], ...(cur?.verdict ? { verdict: cur.verdict } : {}) });
      if (options.format === 'chat-jsonl') {
        let w = writers.get(split);
        if (!w) {
          const rel = `data/${split}.jsonl`;
          w = new JsonlWriter(join(options.outDir, rel));
          writers.set(split, w);
          ctx.report.files.push(rel);
        }
        const rec = toChatJsonl(rollout, env, metadata, { weights: options.weights ?? false });
        // Same field order as the record; the tools list is nearly always the same array, serialised once.
        w.write(`{"messages":${JSON.stringify(rec.messages)},"tools":${toolsJson(rec.tools)},"metadata":${JSON.stringify(rec.metadata)}}`);
        ctx.tokens.add(split, rollout, rollout.tokenSidecar ? source.readRolloutTokens(rollout) : undefined);
      } else {
        // Compact: 10,000 indented files are twice the bytes and time; any JSON viewer indents on demand.
        ctx.writeFile(`trajectories/${split}/${rollout.id.replace(/[^A-Za-z0-9._-]/g, '_')}.json`, `${JSON.stringify(withAtifTokens(toAtifTrajectory(rollout, metadata), rollout, rollout.tokenSidecar ? source.readRolloutTokens(rollout) : undefined))}\n`);
      }
      ctx.counted(split, env, metadata.tags, rollout.success);
      ctx.countEnding(metadata);
    }
  } finally {
    for (const w of writers.values()) w.close();
    ctx.tokens.close();
    ctx.report.files.push(...ctx.tokens.files);
  }
  if (missingEnv > 0) ctx.report.warnings.push(`${missingEnv} rollout(s) name an environment with no spec file in the run; exported without its instruction and family`);
}

const toolsJsonCache = new WeakMap<object, string>();

function toolsJson(tools: object): string {
  let json = toolsJsonCache.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools);
    toolsJsonCache.set(tools, json);
  }
  return json;
}


/** Buffered appends: 10,000 rollouts as one write each would dominate the export time. */
class JsonlWriter {
  private fd: number;
  private chunks: string[] = [];
  private size = 0;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    // "wx": a file or link already there (a planted one) fails the export instead of being written through.
    this.fd = openSync(path, 'wx');
  }

  write(line: string): void {
    this.chunks.push(line, '\n');
    this.size += line.length + 1;
    if (this.size > 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

// ---------------------------------------------------------------- environments (harbor)


const noVerdict = 'no outcome (the run\'s wall clock or a context overflow cut its verification or rating)';

function exportHarbor(ctx: ExportContext): void {
  const { source, options } = ctx;
  const stats = new Map<string, EnvironmentPlayStats>();
  for (const s of source.rollouts) {
    if (!countsTowardEnvironment(s, options, ctx.selection)) {
      const why = defaultExclusion(s, options, ctx.selection)!;
      ctx.report.statsExcluded[why] = (ctx.report.statsExcluded[why] ?? 0) + 1;
      continue;
    }
    // A play whose verification or rating was cut has no outcome (core/rollout/verdict.ts): counting it as a failure
    // made an environment with a slow verifier read as hard in its success_rate.
    const verdict = verdictOf(s);
    if (verdict === null) {
      ctx.report.statsExcluded[noVerdict] = (ctx.report.statsExcluded[noVerdict] ?? 0) + 1;
      continue;
    }
    const st = stats.get(s.envId) ?? { rollouts: 0, successes: 0, rewardSum: 0 };
    st.rollouts++;
    st.successes += verdict ? 1 : 0;
    st.rewardSum += s.reward;
    stats.set(s.envId, st);
  }
  const envs = [...source.environments.values()].sort((a, b) => a.lineage.generation - b.lineage.generation || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const index: Record<SplitName, string[]> = { train: [], validation: [], test: [] };
  const runWallClockSec = source.manifest.config?.budgets?.wallClockSec;
  for (const env of envs) {
    ctx.report.considered++;
    const st = stats.get(env.id);
    const why = environmentExclusion(env, st, options, ctx.selection);
    if (why) {
      ctx.exclude(why);
      continue;
    }
    const files = harborTaskFiles(ctx, env, { ...(runWallClockSec !== undefined ? { runWallClockSec } : {}), inlineUser: options.inlineUser ?? false, runId: source.manifest.runId, ...(options.baseImage ? { baseImage: options.baseImage } : {}) });
    if (!files) continue;
    ctx.report.selected++;
    if (!ctx.firstOf(environmentContent(env))) continue;
    const { root, split } = ctx.splitOf(env.id);
    for (const f of files) ctx.writeFile(`tasks/${env.id}/${f.path}`, f.content, f.mode);
    const labels = ctx.curation('environment', env.id)?.labels ?? [];
    index[split].push(JSON.stringify({
      task: env.id, path: `tasks/${env.id}`, title: env.title, family: env.family, difficulty: env.difficulty, skills: env.skills,
      labels, lineage_root: root, generation: env.lineage.generation, parent: env.lineage.parent, operator: env.lineage.operator,
      rollouts: st?.rollouts ?? 0, success_rate: st && st.rollouts > 0 ? st.successes / st.rollouts : null, mean_reward: st && st.rollouts > 0 ? st.rewardSum / st.rollouts : null,
    }));
    ctx.counted(split, env, [...env.skills, ...labels]);
  }
  for (const s of splitNames) if (index[s].length > 0) ctx.writeFile(`data/${s}.jsonl`, `${index[s].join('\n')}\n`);
}


/**
 * The task folder of an environment, or undefined (with a warning) when its file paths would not each name their
 * own file: "./test.sh" would replace the trust-rule wrapper, "x" and "./x" would overwrite each other.
 */
function harborTaskFiles(ctx: ExportContext, env: EnvironmentSpec, options: HarborTaskOptions): TaskFile[] | undefined {
  let why: string | undefined;
  let files: TaskFile[] = [];
  try {
    files = renderHarborTask(env, options);
    why = folderPathsProblem(files.map((f) => f.path));
  } catch (err) {
    why = err instanceof Error ? err.message.replace(`environment ${env.id}: `, '') : String(err);
  }
  if (!why) return files;
  ctx.report.warnings.push(`environment ${env.id}: ${why}; skipped`);
  ctx.exclude('unsafe file path');
  return undefined;
}

/** What makes two environments the same task: not their ids, titles or lineage. */
function environmentContent(env: EnvironmentSpec): unknown {
  return {
    instruction: env.instruction,
    files: [...env.sandbox.files].sort((a, b) => (a.path < b.path ? -1 : 1)),
    setup: env.sandbox.setup,
    verifier: { script: env.verifier.script, files: [...env.verifier.files].sort((a, b) => (a.path < b.path ? -1 : 1)) },
    oracle: env.oracle.script,
    user: { request: env.user.request, facts: env.user.facts.map((f) => f.text), goal: env.user.goal },
  };
}
