import type { Command, ExecOptions, ExecRole } from '../core/ports/sandbox.js';

/** A command string runs under /bin/sh -c; an argv runs exactly as given. */
export function commandArgv(command: Command): string[] {
  if (typeof command === 'string') return ['/bin/sh', '-c', command];
  if (command.length === 0) throw new Error('an argv command needs at least the program to run');
  return [...command];
}

/** The role a command runs as: `as`, else `setup` for the older `privileged` flag, else `agent`. */
export function roleOf(options: Pick<ExecOptions, 'as' | 'privileged'>): ExecRole {
  return options.as ?? (options.privileged ? 'setup' : 'agent');
}
