import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { outputJsonSchemaFiles, specJsonSchemaFiles } from '../../core/spec/jsonSchema.js';
import type { CommandOutput } from './validate.js';

export const defaultSchemaDir = join('environments', 'schemas');

export interface SchemaOptions {
  out?: string;
  check?: boolean;
}

/**
 * `coevolve schema [--out DIR] [--check]`: writes the JSON Schemas generated from the zod source, or with --check
 * reports which committed files are stale. Returns the exit code.
 */
export function runSchema(options: SchemaOptions, output: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() }): number {
  const dir = resolve(output.cwd, options.out ?? defaultSchemaDir);
  const shown = (f: string): string => relative(output.cwd, f) || f;
  let stale = 0;
  if (!options.check) mkdirSync(dir, { recursive: true });
  for (const { name, text } of [...specJsonSchemaFiles(), ...outputJsonSchemaFiles()]) {
    const file = join(dir, name);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (current === text) {
      output.out(`${shown(file)}: up to date\n`);
      continue;
    }
    if (options.check) {
      stale++;
      output.out(`${shown(file)}: ${current === undefined ? 'missing' : 'stale'}; run \`coevolve schema --out ${shown(dir)}\`\n`);
    } else {
      writeFileSync(file, text);
      output.out(`${shown(file)}: written\n`);
    }
  }
  return stale > 0 ? 1 : 0;
}

export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description('Write the JSON Schemas of the spec formats (for editor completion and validation) and of the metrics and eval results Coevolve writes.')
    .option('--out <dir>', 'folder to write them to', defaultSchemaDir)
    .option('--check', 'write nothing; exit 1 if a schema file is missing or stale')
    .action((options: SchemaOptions) => {
      process.exitCode = runSchema(options);
    });
}
