import type { Command } from 'commander';
import { relative, resolve } from 'node:path';
import { importHarborTasks } from '../../datasets/harborImport.js';
import { formatImportReport, type ImportResult } from '../../datasets/importReport.js';
import { writeImported } from '../../datasets/importWriter.js';
import { importTau2Tasks } from '../../datasets/tau2Import.js';
import { importTb1Tasks } from '../../datasets/tb1Import.js';
import { assignTaskImages } from '../run/taskImages.js';
import { parseBaseMap } from '../../sandbox/build/taskBuildSource.js';
import type { CommandOutput } from './validate.js';

export interface ImportCliOptions {
  out: string;
  license?: string;
  domain?: string;
  force?: boolean;
  json?: boolean;
  /** Terminal-Bench 1: where the converted Harbor task folders go (default <out>/harbor-tasks). */
  harborOut?: string;
  /** FROM images built on local ones (`ubuntu:24.04=coevolve-tasks/python:bookworm`); part of the image tag. */
  base?: string[];
}

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() };

function finish<T>(what: string, result: ImportResult<T>, cli: ImportCliOptions, suffix: string, output: CommandOutput): number {
  writeImported(result, resolve(output.cwd, cli.out), suffix, cli.force ?? false);
  const shown = (p: string) => relative(output.cwd, p) || p;
  if (cli.json) {
    output.out(`${JSON.stringify({
      imported: result.imported.map((i) => ({ source: i.source, id: i.id, file: i.file, unmapped: i.unmapped })),
      skipped: result.skipped,
    }, null, 2)}\n`);
  } else {
    const shownResult = {
      imported: result.imported.map((i) => ({ ...i, source: shown(i.source), ...(i.file ? { file: shown(i.file) } : {}) })),
      skipped: result.skipped.map((s) => ({ ...s, source: shown(s.source) })),
    };
    output.out(`${formatImportReport(what, shownResult)}\n`);
  }
  // Skips are reported, not fatal; only an import that produced nothing fails.
  return result.imported.length > 0 ? 0 : 1;
}

/** `coevolve import harbor <dir...>`: Harbor / Terminal-Bench 2.x task folders -> *.env.yaml. */
export async function runImportHarbor(dirs: string[], cli: ImportCliOptions, output: CommandOutput = processOutput): Promise<number> {
  const result = importHarborTasks(dirs.map((d) => resolve(output.cwd, d)), cli.license ? { license: cli.license } : {});
  await assignTaskImages(result, output.cwd, parseBaseMap(cli.base ?? []));
  return finish('environments', result, cli, '.env.yaml', output);
}

/** `coevolve import terminal-bench-1 <dir...>`: TB1 task folders -> Harbor task folders -> *.env.yaml. */
export async function runImportTb1(dirs: string[], cli: ImportCliOptions, output: CommandOutput = processOutput): Promise<number> {
  const harborOut = resolve(output.cwd, cli.harborOut ?? resolve(cli.out, 'harbor-tasks'));
  const result = importTb1Tasks(dirs.map((d) => resolve(output.cwd, d)), { harborOut, ...(cli.force ? { force: true } : {}), ...(cli.license ? { license: cli.license } : {}) });
  await assignTaskImages(result, output.cwd, parseBaseMap(cli.base ?? []));
  return finish('environments', result, cli, '.env.yaml', output);
}

/** `coevolve import tau2 <tasks.json...>`: tau2-bench tasks -> *.user.yaml. */
export function runImportTau2(files: string[], cli: ImportCliOptions, output: CommandOutput = processOutput): number {
  const result = importTau2Tasks(files.map((f) => resolve(output.cwd, f)), { ...(cli.license ? { license: cli.license } : {}), ...(cli.domain ? { domain: cli.domain } : {}) });
  return finish('users', result, cli, '.user.yaml', output);
}

export function registerImportCommand(program: Command): void {
  const imp = program.command('import').description('Import tasks from other suites as Coevolve specs (a report says what could not be mapped).');
  imp
    .command('harbor')
    .description('Harbor / Terminal-Bench 2.x task folders (or folders of them) -> *.env.yaml environment specs.')
    .argument('<dirs...>', 'task folders, or dataset folders holding task folders')
    .option('--out <dir>', 'where to write the specs', '.')
    .option('--license <id>', 'license of the source suite, recorded in provenance')
    .option('--force', 'overwrite existing spec files')
    .option('--json', 'print the report as JSON')
    .option('--base <from=to>', 'the task images build on a local image instead of this FROM image (repeatable; pass the same to `sandbox build`)', (v: string, acc: string[]) => [...acc, v], [])
    .action(async (dirs: string[], opts: ImportCliOptions) => {
      process.exitCode = await runImportHarbor(dirs, opts);
    });
  imp
    .command('terminal-bench-1')
    .alias('tb1')
    .description('Terminal-Bench 1 task folders (task.yaml, Dockerfile, run-tests.sh, solution.sh|yaml, tests/) -> Harbor task folders -> *.env.yaml.')
    .argument('<dirs...>', 'task folders, or folders holding task folders')
    .option('--out <dir>', 'where to write the specs', '.')
    .option('--harbor-out <dir>', 'where to write the converted Harbor task folders (default <out>/harbor-tasks)')
    .option('--license <id>', 'license of the source suite, recorded in provenance')
    .option('--force', 'overwrite existing spec files and converted folders')
    .option('--json', 'print the report as JSON')
    .option('--base <from=to>', 'the task images build on a local image instead of this FROM image (repeatable; pass the same to `sandbox build`)', (v: string, acc: string[]) => [...acc, v], [])
    .action(async (dirs: string[], opts: ImportCliOptions) => {
      process.exitCode = await runImportTb1(dirs, opts);
    });
  imp
    .command('tau2')
    .description('tau2-bench task files -> *.user.yaml simulated-user profiles.')
    .argument('<files...>', 'tasks JSON files (a list of tasks, or one task per file)')
    .option('--out <dir>', 'where to write the profiles', '.')
    .option('--domain <name>', 'domain when the tasks do not name one (default: the file\'s folder name)')
    .option('--license <id>', 'license of the source suite, recorded in provenance')
    .option('--force', 'overwrite existing profile files')
    .option('--json', 'print the report as JSON')
    .action((files: string[], opts: ImportCliOptions) => {
      process.exitCode = runImportTau2(files, opts);
    });
}
