import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { specJsonSchemaFiles } from '../../core/spec/jsonSchema.js';
import { UserError } from '../errors.js';
import type { CommandOutput } from './validate.js';

/** The commented examples copied by `init`, relative to the package's environments/ folder. */
export const exampleSpecFiles = [
  'example.run.yaml',
  'log-triage.env.yaml',
  'csv-report.env.yaml',
  'config-repair.env.yaml',
  'terse-ops.user.yaml',
  'patient-novice.user.yaml',
  'demo.run.yaml',
] as const;

/** The package's own environments/ folder: next to dist/ when bundled, or the repository root when run from source. */
export function packageEnvironmentsDir(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'environments', exampleSpecFiles[0]))) return join(dir, 'environments');
    const up = dirname(dir);
    if (up === dir) throw new UserError(`cannot find the example specs (environments/${exampleSpecFiles[0]}) above ${start}; reinstall coevolve`);
    dir = up;
  }
}

/**
 * `coevolve init [dir]`: writes the example specs and their JSON Schemas into <dir>/environments. Refuses to
 * overwrite anything, naming every file in the way.
 */
export function runInit(dir: string | undefined, output: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() }, sourceDir?: string): number {
  const target = join(resolve(output.cwd, dir ?? '.'), 'environments');
  const source = sourceDir ?? packageEnvironmentsDir();
  const files = [
    ...exampleSpecFiles.map((name) => ({ name, text: readFileSync(join(source, name), 'utf8') })),
    ...specJsonSchemaFiles().map((s) => ({ name: join('schemas', s.name), text: s.text })),
  ];
  const shown = (f: string): string => relative(output.cwd, f) || f;
  const existing = files.map((f) => join(target, f.name)).filter((f) => existsSync(f));
  if (existing.length > 0) {
    throw new UserError(`init writes nothing, because these files exist already: ${existing.map(shown).join(', ')}; move them away or choose another folder`);
  }
  for (const f of files) {
    const path = join(target, f.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.text, { flag: 'wx' });
  }
  output.out(`created ${files.length} files in ${shown(target)}:\n`);
  for (const f of files) output.out(`  ${join(shown(target), f.name)}\n`);
  output.out(`next: coevolve validate ${shown(target)}\n`);
  return 0;
}

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('Scaffold a workspace: example environment, user and run specs with their JSON Schemas in <dir>/environments.')
    .argument('[dir]', 'workspace folder', '.')
    .action((dir: string) => {
      process.exitCode = runInit(dir);
    });
}
