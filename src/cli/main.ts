// The headless CLI. Each command lives in src/cli/commands/<name>.ts and registers itself on the program here.
import { Command } from 'commander';
import { toolVersion } from '../core/version.js';
import { registerCheckCommand } from './commands/check.js';
import { registerCurateCommand } from './commands/curate.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerExportCommand } from './commands/export.js';
import { registerFamiliesCommand } from './commands/families.js';
import { registerImportCommand } from './commands/import.js';
import { registerInitCommand } from './commands/init.js';
import { registerRerunCommand } from './commands/rerun.js';
import { registerRunCommands } from './commands/run.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerSchemaCommand } from './commands/schema.js';
import { registerValidateCommand } from './commands/validate.js';
import { registerViewCommand } from './commands/view.js';
import { reportAndExit } from './errors.js';

const program = new Command()
  .name('coevolve')
  .description('Environment–agent–user co-evolution for terminal agents.')
  .version(toolVersion)
  .option('--verbose', 'print stack traces and debug output');

// Command registrations (one line each; keep sorted):
registerCheckCommand(program);
registerCurateCommand(program);
registerEvalCommand(program);
registerExportCommand(program);
registerFamiliesCommand(program);
registerImportCommand(program);
registerInitCommand(program);
registerRerunCommand(program);
registerRunCommands(program);
registerSandboxCommand(program);
registerSchemaCommand(program);
registerValidateCommand(program);
registerViewCommand(program);

program.parseAsync(process.argv).catch((err: unknown) => reportAndExit(err, program.opts<{ verbose?: boolean }>().verbose ?? false));
