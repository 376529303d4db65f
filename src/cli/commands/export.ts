import { Option, type Command } from 'commander';
import { relative, resolve } from 'node:path';
import type { ExportFormat } from '../../datasets/datasetCard.js';
import { exportFormats, exportRun, type ExportOptions, type ExportReport } from '../../datasets/exportRun.js';
import { parseSplitRatios } from '../../datasets/splits.js';
import { UserError } from '../errors.js';
import { checkRunDirArg } from '../fileArgs.js';
import type { CommandOutput } from './validate.js';

export interface ExportCliOptions {
  format: ExportFormat;
  out: string;
  filter: 'accepted' | 'all';
  minReward?: string;
  tag: string[];
  family: string[];
  generation: string[];
  splits?: string;
  weights?: boolean;
  license?: string;
  baseImage?: string;
  inlineUser?: boolean;
  force?: boolean;
  includeHintPlays?: boolean;
  includeUnsandboxed?: boolean;
  json?: boolean;
}

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() };

function toNumber(text: string, flag: string, integer: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) throw new UserError(`${flag} "${text}" is not ${integer ? 'an integer' : 'a number'}`);
  return n;
}

/** `coevolve export <runDir> --format F --out DIR`: prints what was written and what was left out; returns the exit code. */
export async function runExport(runDir: string, cli: ExportCliOptions, output: CommandOutput = processOutput): Promise<number> {
  checkRunDirArg(resolve(output.cwd, runDir));
  const options: ExportOptions = {
    format: cli.format,
    outDir: resolve(output.cwd, cli.out),
    filter: cli.filter,
    tags: cli.tag,
    families: cli.family,
    generations: cli.generation.map((g) => toNumber(g, '--generation', true)),
    weights: cli.weights ?? false,
    inlineUser: cli.inlineUser ?? false,
    force: cli.force ?? false,
    includeHintPlays: cli.includeHintPlays ?? false,
    includeUnsandboxed: cli.includeUnsandboxed ?? false,
  };
  if (cli.minReward !== undefined) options.minReward = toNumber(cli.minReward, '--min-reward', false);
  if (cli.license) options.license = cli.license;
  if (cli.baseImage) options.baseImage = cli.baseImage;
  if (cli.splits) {
    try {
      options.splits = parseSplitRatios(cli.splits);
    } catch (err) {
      throw new UserError(err instanceof Error ? err.message : String(err));
    }
  }
  let report: ExportReport;
  try {
    report = await exportRun(resolve(output.cwd, runDir), options);
  } catch (err) {
    // Errors from the run reader and the exporter already say what and where; keep them one line.
    throw new UserError(err instanceof Error ? err.message : String(err));
  }
  if (cli.json) {
    output.out(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    output.out(describeReport(report, output.cwd));
  }
  return report.exported > 0 ? 0 : 1;
}

export function describeReport(r: ExportReport, cwd: string): string {
  const unit = r.format === 'harbor' ? 'environments' : 'rollouts';
  const shown = relative(cwd, r.outDir) || '.';
  const lines = [`exported ${r.exported} of ${r.considered} ${unit} as ${r.format} to ${shown}`];
  lines.push(`  splits: ${(['train', 'validation', 'test'] as const).map((s) => `${s} ${r.perSplit[s]} (${r.lineages[s]} lineage${r.lineages[s] === 1 ? '' : 's'})`).join(', ')}`);
  const left = Object.entries(r.excluded).sort((a, b) => b[1] - a[1]);
  if (left.length > 0) lines.push(`  left out: ${left.map(([why, n]) => `${n} ${why}`).join('; ')}`);
  const stats = Object.entries(r.statsExcluded).sort((a, b) => b[1] - a[1]);
  if (stats.length > 0) lines.push(`  not in play statistics: ${stats.map(([why, n]) => `${n} ${why}`).join('; ')}`);
  if (r.duplicates > 0) lines.push(`  duplicates removed: ${r.duplicates}`);
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  lines.push(`  dataset card: ${shown}/README.md`);
  if (r.exported === 0) lines.push(`nothing was exported; ${r.considered === 0 ? `the run has no ${unit} yet` : 'loosen the filters (e.g. --filter all) or curate first (coevolve curate accept ...)'}`);
  return `${lines.join('\n')}\n`;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('Export a run as a dataset: chat JSONL (SFT/RL), ATIF trajectories or Harbor task folders, with splits by lineage and a dataset card.')
    .argument('<runDir>', 'run directory (runs/<name>-<timestamp>)')
    .addOption(new Option('--format <format>', 'output format').choices(exportFormats).makeOptionMandatory())
    .requiredOption('--out <dir>', 'output folder (created; must be empty unless --force)')
    .addOption(new Option('--filter <which>', 'accepted: only what curation accepted; all: everything not rejected').choices(['accepted', 'all']).default('accepted'))
    .option('--min-reward <x>', 'keep rollouts with reward >= x (harbor: environments with mean reward >= x)')
    .option('--tag <tag>', 'keep items with this tag, skill or curation label (repeatable: any of them)', collect, [])
    .option('--family <family>', 'keep this task family (repeatable)', collect, [])
    .option('--generation <n>', 'keep this generation (repeatable)', collect, [])
    .option('--splits <ratios>', 'train,validation,test ratios', '80,10,10')
    .option('--weights', 'chat-jsonl: add weight 0/1 to assistant messages (0 on malformed turns)')
    .option('--license <id>', 'license in the dataset card (e.g. apache-2.0)', 'other')
    .option('--base-image <image>', 'harbor: FROM image of every Dockerfile (default: each environment\'s sandbox image)')
    .option('--inline-user', 'harbor: append the user\'s request and facts to instruction.md, for harnesses without a simulated user')
    .option('--include-hint-plays', 'keep hint plays (left out by default: the agent saw a privileged hint, which their system message carries)')
    .option('--include-unsandboxed', 'keep rollouts of the unsandboxed process backend (left out by default)')
    .option('--force', 'replace an earlier export in --out')
    .option('--json', 'print the report as JSON')
    .action(async (runDir: string, opts: ExportCliOptions) => {
      process.exitCode = await runExport(runDir, opts);
    });
}
