import type { Command } from 'commander';
import { relative } from 'node:path';
import type { Problem } from '../../core/spec/problems.js';
import { validateFiles } from '../../specs/workspace.js';

export interface ValidateOptions {
  json?: boolean;
}

/** Where command output goes; tests pass their own to capture it. */
export interface CommandOutput {
  out(text: string): void;
  cwd: string;
}

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() };

/**
 * `coevolve validate <files or dirs...>`: prints `file:line:column: severity: message` per problem and a summary,
 * or the problem objects as JSON; returns the exit code (1 when any error was found).
 */
export async function runValidate(paths: string[], options: ValidateOptions, output: CommandOutput = processOutput): Promise<number> {
  const result = await validateFiles(paths, { cwd: output.cwd });
  const problems = result.problems.map((p): Problem => ({ ...p, file: relative(output.cwd, p.file) || '.' }));
  const errors = problems.filter((p) => p.severity === 'error').length;
  if (options.json) {
    output.out(`${JSON.stringify(problems, null, 2)}\n`);
  } else {
    for (const p of problems) output.out(`${formatProblemLine(p)}\n`);
    output.out(`${summary(problems, result.files.map((f) => relative(output.cwd, f) || '.'))}\n`);
  }
  return errors > 0 ? 1 : 0;
}

/** One problem as compilers print them, so terminals and editors can jump to it. */
export function formatProblemLine(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}`;
}

function summary(problems: Problem[], checked: string[]): string {
  const files = `${checked.length} spec file${checked.length === 1 ? '' : 's'}`;
  if (problems.length === 0) return `${files} checked, no problems`;
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  const parts = [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter(Boolean).join(' and ');
  const withProblems = new Set(problems.map((p) => p.file));
  // Problems about arguments (a missing path, an empty folder) are not about any spec file checked.
  if ([...withProblems].every((f) => checked.includes(f))) return `${parts} in ${withProblems.size} of ${files}`;
  return `${parts}; ${files} checked`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check environment, user, agent and run specs (files, or folders searched for *.env.yaml, *.user.yaml, *.agent.yaml, *.run.yaml).')
    .argument('<paths...>', 'spec files or folders')
    .option('--json', 'print the problems as a JSON array of {file, line, column, endLine, endColumn, severity, message, path}')
    .action(async (paths: string[], options: ValidateOptions) => {
      process.exitCode = await runValidate(paths, options);
    });
}
