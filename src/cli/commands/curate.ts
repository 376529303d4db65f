import { Option, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { runLayout } from '../../store/layout.js';
import { appendCuration, readCuration, type CurationAction, type CurationEntry, type CurationTarget, type CurationTargetKind } from '../../store/curation.js';
import { openRun } from '../../store/runReader.js';
import { UserError } from '../errors.js';
import { checkRunDirArg } from '../fileArgs.js';
import type { CommandOutput } from './validate.js';

export interface CurateCliOptions {
  kind?: CurationTargetKind;
  note?: string;
  author?: string;
  successful?: boolean;
  json?: boolean;
}

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() };

/**
 * Resolves ids to targets: an id is a rollout or an environment of the run; `--kind` settles an id that is both.
 * Every unknown id is named at once, so a typo costs one try.
 */
function resolveTargets(runDir: string, ids: string[], cli: CurateCliOptions): CurationTarget[] {
  let index;
  try {
    index = openRun(runDir);
  } catch (err) {
    throw new UserError(err instanceof Error ? err.message : String(err));
  }
  const targets: CurationTarget[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    const isRollout = index.rollouts.has(id);
    const isEnv = existsSync(runLayout.environment(runDir, id));
    const kind = cli.kind ?? (isRollout && isEnv ? undefined : isRollout ? 'rollout' : isEnv ? 'environment' : undefined);
    if (isRollout && isEnv && !cli.kind) throw new UserError(`"${id}" is both a rollout and an environment of ${runDir}; say which with --kind rollout or --kind environment`);
    if (!kind || (kind === 'rollout' && !isRollout) || (kind === 'environment' && !isEnv)) unknown.push(id);
    else targets.push({ kind, id });
  }
  if (cli.successful) for (const s of index.rollouts.values()) if (s.success && s.status !== 'error') targets.push({ kind: 'rollout', id: s.id });
  if (unknown.length > 0) throw new UserError(`${runDir} has no ${cli.kind ?? 'rollout or environment'} named ${unknown.map((u) => `"${u}"`).join(', ')}; list them with coevolve curate show or the Runs view`);
  if (targets.length === 0) throw new UserError('name at least one rollout or environment id (or --successful for every successful rollout)');
  return targets;
}

export async function runCurate(action: CurationAction, runDir: string, ids: string[], cli: CurateCliOptions, label: string | undefined, output: CommandOutput = processOutput): Promise<number> {
  const dir = resolve(output.cwd, runDir);
  checkRunDirArg(dir);
  const targets = resolveTargets(dir, ids, cli);
  const at = new Date().toISOString();
  const entries: CurationEntry[] = targets.map((target) => {
    const e: CurationEntry = { at, target, action };
    if (label !== undefined) e.label = label;
    if (cli.note) e.text = cli.note;
    if (cli.author) e.author = cli.author;
    return e;
  });
  await appendCuration(dir, entries);
  const verb = { accept: 'accepted', reject: 'rejected', clear: 'cleared', label: `labelled "${label}":`, unlabel: `removed label "${label}" from`, comment: 'commented on' }[action];
  output.out(`${verb} ${targets.length} item${targets.length === 1 ? '' : 's'}${targets.length <= 5 ? `: ${targets.map((t) => `${t.kind} ${t.id}`).join(', ')}` : ''}\n`);
  return 0;
}

/** `coevolve curate show <runDir>`: the folded curation state, one line per curated item. */
export function runCurateShow(runDir: string, cli: CurateCliOptions, output: CommandOutput = processOutput): number {
  const dir = resolve(output.cwd, runDir);
  checkRunDirArg(dir);
  if (!existsSync(runLayout.manifest(dir))) throw new UserError(`${dir} is not a Coevolve run directory (no manifest.json)`);
  const c = readCuration(dir);
  const states = [...c.states.values()].sort((a, b) => a.target.kind.localeCompare(b.target.kind) || a.target.id.localeCompare(b.target.id));
  if (cli.json) {
    output.out(`${JSON.stringify({ states, badLines: c.badLines, tornTailBytes: c.tornTailBytes }, null, 2)}\n`);
    return 0;
  }
  for (const s of states) {
    const parts = [s.verdict ?? 'undecided'];
    if (s.labels.length > 0) parts.push(`labels: ${s.labels.join(', ')}`);
    if (s.comments.length > 0) parts.push(`${s.comments.length} comment${s.comments.length === 1 ? '' : 's'}`);
    if (s.verdictNote) parts.push(`note: ${s.verdictNote}`);
    output.out(`${s.target.kind} ${s.target.id}: ${parts.join(' · ')}\n`);
  }
  const count = (v: string) => states.filter((s) => s.verdict === v).length;
  output.out(`${states.length} curated item(s): ${count('accepted')} accepted, ${count('rejected')} rejected${c.badLines.length > 0 ? `; ${c.badLines.length} unreadable line(s) in curation.jsonl skipped` : ''}\n`);
  return 0;
}

export function registerCurateCommand(program: Command): void {
  const curate = program.command('curate').description('Accept, reject, label or comment rollouts and environments of a run (append-only curation.jsonl).');
  const kind = () => new Option('--kind <kind>', 'what the ids name, when an id is both').choices(['rollout', 'environment']);
  for (const action of ['accept', 'reject', 'clear'] as const) {
    curate
      .command(action)
      .description(`${action === 'clear' ? 'Withdraw the accept / reject decision on' : action === 'accept' ? 'Accept' : 'Reject'} rollouts or environments.`)
      .argument('<runDir>', 'run directory')
      .argument('[ids...]', 'rollout or environment ids')
      .addOption(kind())
      .option('--successful', 'also every successful rollout of the run')
      .option('--note <text>', 'why (kept with the decision)')
      .option('--author <name>', 'who decided')
      .action(async (runDir: string, ids: string[], opts: CurateCliOptions) => {
        process.exitCode = await runCurate(action, runDir, ids, opts, undefined);
      });
  }
  curate
    .command('label')
    .description('Add a label (or remove it with --remove).')
    .argument('<runDir>', 'run directory')
    .argument('<label>', 'the label, e.g. gold or needs-review')
    .argument('[ids...]', 'rollout or environment ids')
    .addOption(kind())
    .option('--remove', 'remove the label instead')
    .option('--successful', 'also every successful rollout of the run')
    .option('--author <name>', 'who labelled')
    .action(async (runDir: string, label: string, ids: string[], opts: CurateCliOptions & { remove?: boolean }) => {
      process.exitCode = await runCurate(opts.remove ? 'unlabel' : 'label', runDir, ids, opts, label);
    });
  curate
    .command('comment')
    .description('Add a comment to one rollout or environment.')
    .argument('<runDir>', 'run directory')
    .argument('<id>', 'rollout or environment id')
    .argument('<text...>', 'the comment')
    .addOption(kind())
    .option('--author <name>', 'who commented')
    .action(async (runDir: string, id: string, text: string[], opts: CurateCliOptions) => {
      process.exitCode = await runCurate('comment', runDir, [id], { ...opts, note: text.join(' ') }, undefined);
    });
  curate
    .command('show')
    .description('List the curation state of a run.')
    .argument('<runDir>', 'run directory')
    .option('--json', 'print as JSON')
    .action((runDir: string, opts: CurateCliOptions) => {
      process.exitCode = runCurateShow(runDir, opts);
    });
}
