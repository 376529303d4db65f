/** Errors a user can act on are printed as one line; a stack trace only with --verbose. */
export class UserError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'UserError';
  }
}

export function reportAndExit(err: unknown, verbose: boolean): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`coevolve: ${message}\n`);
  if (verbose && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(err instanceof UserError ? err.exitCode : 1);
}
