import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MoveAim } from '../../core/metrics/aimCheck.js';
import type { GenerationMetrics } from '../../core/metrics/generationMetrics.js';
import { parseGenerationMetrics } from '../../core/metrics/metricsSchema.js';
import { runAimByMove } from '../../store/runAims.js';
import { RunFileError } from '../../store/runFiles.js';
import { formatRunProblem, openRun, readGenerationMetrics, salvageRollouts, type RunIndex } from '../../store/runReader.js';

export interface RunReport {
  run: { dir: string; name: string; runId: string; seed: number; status: string; roles: Record<string, string>; generations: number; rollouts: number };
  /** Per generation, everything but wall-clock timings, so two runs of the same config and seed compare equal. */
  generations: Omit<GenerationMetrics, 'durationMs'>[];
  timing: { generationMs: number[] };
  /** The run's target success band, for the table's notes. */
  band?: { low: number; high: number };
  /** Plays per pair (pass^k is reported at this k). */
  k?: number;
  /** What in the run directory was damaged and skipped or rebuilt ("file:line: what; what was done"). */
  problems: string[];
  /** Version-2 fields this run's metrics do not have (a run written before the measured frontier); empty otherwise. */
  notRecorded: string[];
  /**
   * The steering's aim by move over the whole run: screened environment children and new pairings, admitted or
   * refused, from their events' planned prediction and screening plays (`runAims.ts`). Empty for a run recorded before
   * the events carried predictions.
   */
  aimByMove: MoveAim[];
}

export function buildReport(runDir: string): RunReport {
  const index: RunIndex = openRun(runDir);
  // Rollouts whose event line was lost are counted from their files, and the report says so.
  if (index.status !== 'running') salvageRollouts(index);
  const problems = index.problems.map(formatRunProblem);
  const metrics: GenerationMetrics[] = [];
  const missing = new Set<string>();
  const dir = join(runDir, 'generations');
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).filter((n) => /^g\d{4}\.json$/.test(n)).sort()) {
      const g = Number(f.slice(1, 5));
      try {
        const raw = readGenerationMetrics(runDir, g);
        if (!raw) continue;
        const parsed = parseGenerationMetrics(raw, join(dir, f));
        parsed.missing.forEach((key) => missing.add(key));
        metrics.push(parsed.metrics);
      } catch (err) {
        if (err instanceof RunFileError) problems.push(`${err.short}; generation ${g} is left out of the report`);
        else if (err instanceof Error && err.message.startsWith(join(dir, f))) problems.push(`${err.message}; generation ${g} is left out of the report`);
        else throw err;
      }
    }
  }
  return {
    run: {
      dir: runDir,
      name: index.manifest.name,
      runId: index.manifest.runId,
      seed: index.manifest.seed,
      status: index.status,
      roles: index.manifest.roles,
      generations: metrics.length,
      rollouts: index.rollouts.size,
    },
    generations: metrics.map(({ durationMs: _d, ...rest }) => rest),
    timing: { generationMs: metrics.map((m) => m.durationMs) },
    band: { low: index.manifest.config.band.low, high: index.manifest.config.band.high },
    k: index.manifest.config.k,
    problems,
    notRecorded: [...missing],
    aimByMove: runAimByMove(index.events),
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const num = (x: number, d = 2): string => x.toFixed(d);

interface Column<T = RunReport['generations'][number]> {
  head: string;
  right: boolean;
  cell: (row: T) => string;
}

/** Cells padded to their column's width, so the table lines up in a terminal and is still markdown. */
function table<T>(columns: Column<T>[], rows: readonly T[]): string[] {
  const cells = rows.map((g) => columns.map((c) => c.cell(g)));
  const widths = columns.map((c, i) => Math.max(c.head.length, ...cells.map((r) => (r[i] as string).length)));
  const pad = (text: string, i: number): string => (columns[i]?.right ? text.padStart(widths[i] as number) : text.padEnd(widths[i] as number));
  return [
    `| ${columns.map((c, i) => pad(c.head, i)).join(' | ')} |`,
    `|${columns.map((c, i) => (c.right ? `${'-'.repeat((widths[i] as number) + 1)}:` : `:${'-'.repeat((widths[i] as number) + 1)}`)).join('|')}|`,
    ...cells.map((r) => `| ${r.map((t, i) => pad(t, i)).join(' | ')} |`),
  ];
}

type Gen = RunReport['generations'][number];

/** Measured difficulty, beside the design difficulty in the first table (metrics version 2 only). */
const measuredColumn: Column = { head: 'measured', right: true, cell: (g: Gen) => (g.measuredDifficulty ? `${num(g.measuredDifficulty.archive.mean)} ± ${num(g.measuredDifficulty.archive.se)}` : '—') };

/** A success with its 95 % interval, compact so the frontier table fits a terminal: "46% [28–65]". */
function scoreCell(s: { success: number; ci: [number, number] }): string {
  const whole = (x: number): string => (x * 100).toFixed(0);
  return `${pct(s.success)} [${whole(s.ci[0])}–${whole(s.ci[1])}]`;
}

/** Metrics-version-2 columns; left out for runs that did not record them (a note says so). */
const frontierColumns: Column[] = [
  { head: 'archive in band', right: true, cell: (g: Gen) => (g.archiveBand ? `${pct(g.archiveBand.inBandShare)} of ${g.archiveBand.activePairs}` : '—') },
  { head: 'held-out', right: true, cell: (g: Gen) => (g.heldOut?.test ? scoreCell(g.heldOut.test.score) : '—') },
  { head: 'agent race', right: false, cell: (g: Gen) => raceCell(g) },
  { head: 'user effect', right: true, cell: (g: Gen) => (g.userEffect?.meanVsParent ? `${num(g.userEffect.meanVsParent.mean)} (${g.userEffect.meanVsParent.n})` : '—') },
];

const yieldColumn: Column = { head: 'yield', right: true, cell: (g: Gen) => (g.frontierYield.measured !== undefined ? `${g.frontierYield.inBand}/${g.frontierYield.measured}` : '—') };

/** The steering's aim against its children's screening: "48% → 62% [52–71]"; — before it was recorded or with none screened. */
const aimColumn: Column = { head: 'aimed → screened', right: true, cell: (g: Gen) => (g.frontierYield.aim ? `${pct(g.frontierYield.aim.predicted)} → ${scoreCell({ success: g.frontierYield.aim.screened, ci: g.frontierYield.aim.ci })}` : '—') };

/** The aim by move over the run: "harder:horizon | 12 | 1–3 | 54% → 70% [58–80]". */
const moveColumns: Column<MoveAim>[] = [
  { head: 'by move', right: false, cell: (m) => (m.move === 'repair' ? 'new pairing' : m.move) },
  { head: 'children', right: true, cell: (m) => String(m.children) },
  { head: 'steps', right: true, cell: (m) => (m.steps[0] === m.steps[1] ? String(m.steps[0]) : `${m.steps[0]}–${m.steps[1]}`) },
  { head: 'aimed → screened', right: true, cell: (m) => `${pct(m.predicted)} → ${scoreCell({ success: m.screened, ci: m.ci })}` },
];

/** The leading promotion race: candidate vs incumbent over the race's plays with intervals, wins-losses, decision. */
function raceCell(g: Gen): string {
  const p = g.heldOut?.promotion;
  if (!p || p.decision === 'none') return '—';
  const lead = p.races?.find((r) => r.candidateId === p.candidate?.agentId);
  const scores = lead ? `${scoreCell(lead.candidate)} vs ${scoreCell(lead.incumbent)} · ` : '';
  return `${scores}${p.wins}-${p.losses} ${p.decision}`;
}

/**
 * The markdown tables people read in a terminal or paste into a note: what was played, then the frontier
 * measurement and the children. Columns that would repeat another (pass@1 is the success rate; verifier success
 * when it equals success; tokens and cost when nothing was spent) are left out and said in a line under the tables,
 * so each stays within a terminal's width.
 */
export function formatReportMarkdown(r: RunReport): string {
  const gens = r.generations;
  const shown: ShownColumns = {
    verifierDiffers: gens.some((g) => Math.abs(g.verifierSuccessRate - g.successRate) > 1e-9),
    spent: gens.some((g) => g.tokens > 0 || g.costUsd > 0),
    frontier: r.notRecorded.length === 0,
  };
  // Three tables, each within a terminal's width: what was played, what the frontier measurement says, the children.
  // The frontier measurement and the children are two tables: side by side a demo's race and refusal cells drew
  // 145-159 columns, wider than a terminal.
  const lines = [
    `# ${r.run.name} (${r.run.status})`,
    '',
    `run ${r.run.runId} · seed ${r.run.seed} · ${r.run.rollouts} rollouts · ${Object.entries(r.run.roles).map(([key, v]) => `${key}: ${v}`).join(' · ')}`,
    '',
    ...table(playedColumns(r.k ?? 4, shown), gens),
    '',
    ...(shown.frontier ? [...table([genColumn, ...frontierColumns], gens), ''] : []),
    ...table(childrenColumns(shown), gens),
    '',
    ...(r.aimByMove.length ? [...table(moveColumns, r.aimByMove), ''] : []),
    ...reportNotes(r, shown),
    ...troubleLines(r),
  ];
  return `${lines.join('\n')}\n`;
}

/** Which optional columns a report shows: a column that would repeat another, or that a run did not record, is left out. */
interface ShownColumns {
  /** The verifier alone differs from success in some generation. */
  verifierDiffers: boolean;
  /** Some generation spent tokens or money. */
  spent: boolean;
  /** The run recorded the metrics-version-2 (frontier) figures. */
  frontier: boolean;
}

const genColumn: Column = { head: 'gen', right: true, cell: (g) => String(g.index) };

/** What was played: success and reward, difficulty, the band, users and the agent (and tokens and cost when spent). */
function playedColumns(k: number, shown: ShownColumns): Column[] {
  return [
    genColumn,
    { head: 'rollouts', right: true, cell: (g) => String(g.rollouts) },
    { head: 'success', right: true, cell: (g) => pct(g.successRate) },
    ...(shown.verifierDiffers ? [{ head: 'verifier', right: true, cell: (g: Gen) => pct(g.verifierSuccessRate) }] : []),
    { head: `pass^${k}`, right: true, cell: (g) => pct(g.passHatK[k] ?? 0) },
    { head: 'reward', right: true, cell: (g) => num(g.meanReward) },
    { head: 'regret', right: true, cell: (g) => num(g.regret) },
    { head: 'difficulty', right: true, cell: (g) => num(g.meanDifficulty, 1) },
    ...(shown.frontier ? [measuredColumn] : []),
    { head: 'in band', right: true, cell: (g) => pct(g.inBandShare) },
    { head: 'evolved users', right: true, cell: (g) => pct(g.users.evolvedShare ?? 0) },
    { head: 'agent', right: false, cell: (g) => `${g.agent.id}${g.agent.changed ? ' ↑' : ''}` },
    ...(shown.spent ? [
      { head: 'tokens', right: true, cell: (g: Gen) => String(g.tokens) },
      { head: 'cost $', right: true, cell: (g: Gen) => num(g.costUsd, 4) },
    ] : []),
  ];
}

/** The children: how many came into the band and how the steering's aim held (when recorded), how many were admitted and why not. */
function childrenColumns(shown: ShownColumns): Column[] {
  const children = (g: Gen): string => {
    const rej = Object.entries(g.rejections).map(([why, n]) => `${n} ${rejectionLabel(why)}`).join(', ');
    return `${g.frontierYield.accepted}/${g.frontierYield.proposed}${rej ? ` (${rej})` : ''}`;
  };
  return [genColumn, ...(shown.frontier ? [yieldColumn, aimColumn] : []), { head: 'children ok', right: false, cell: children }];
}

/** The lines under the tables: what each column means, and which columns were left out and why. */
function reportNotes(r: RunReport, shown: ShownColumns): string[] {
  return [
    `success = the verifier passed and the user's goal was met (no-hint plays); pass@1 equals it${shown.verifierDiffers ? '' : ', and so does the verifier alone in every generation'}.`,
    `difficulty = mean design difficulty (the specs' own label; built-in families use levels 1–5); in band = share of pairs with success in ${r.band ? `${pct(r.band.low)}–${pct(r.band.high)}` : 'the band'}; ↑ = agent promoted.`,
    shown.frontier ? 'archive in band = active pairs whose pooled-evidence posterior mean is in the band (of how many); measured = archive difficulty on the Rasch scale ± se; held-out = current agent on the frozen test set [95 % interval, in %]; agent race = the leading candidate vs the incumbent on the promotion set over its race [95 % intervals], discordant wins-losses, decision; user effect = mean parent − child success of admitted user children (how many); yield = children in band at their first measurement / measured; aimed → screened = the fitted model\'s mean predicted success of the children screened this generation, from when they were planned, against the success of their screening plays [95 % interval].' : '',
    r.aimByMove.length ? 'by move = the same aim over the whole run for the children made with each move (a new pairing made by a move counts under it), most screening plays first; steps = fewest–most steps of it in one child.' : '',
    shown.frontier ? '' : `not recorded by this run (written before metrics version 2): ${r.notRecorded.join(', ')}.`,
    shown.spent ? '' : 'no model calls: 0 tokens, $0.',
  ].filter(Boolean);
}

/** Infrastructure errors and plays with no outcome by generation, and problems of the run directory, when there were any. */
function troubleLines(r: RunReport): string[] {
  const lines: string[] = [];
  const errorLines = r.generations.filter((g) => g.errors > 0).map((g) => `- generation ${g.index}: ${errorKindsText(g)}`);
  if (errorLines.length > 0) lines.push('', 'infrastructure errors (not counted in success or reward, left out of exports):', ...errorLines);
  const cutLines = r.generations.filter((g) => (g.unfinished ?? 0) > 0).map((g) => `- generation ${g.index}: ${g.unfinished}`);
  if (cutLines.length > 0) lines.push('', 'plays with no outcome (the wall clock or a context overflow cut their verification or rating; not counted in success, left out of the evidence):', ...cutLines);
  if (r.problems.length > 0) {
    lines.push('', `${r.problems.length} problem${r.problems.length === 1 ? '' : 's'} in the run directory (skipped or rebuilt):`, ...r.problems.map((p) => `- ${p}`));
  }
  return lines;
}

/** "2 model, 1 sandbox-host"; a run written before errors were counted per kind says only how many. */
function errorKindsText(g: Gen): string {
  const kinds = Object.entries(g.errorsByKind ?? {}).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return kinds.length > 0 ? kinds.map(([kind, n]) => `${n} ${kind}`).join(', ') : `${g.errors} (kind not recorded by this run)`;
}

/** A child's rejection reason in words short enough for the frontier table (the reason id stays in the JSON). */
export function rejectionLabel(reason: string): string {
  return reason === 'realism_unsatisfiable' ? 'unrealistic' : reason.replaceAll('_', ' ');
}
