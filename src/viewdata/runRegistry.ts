import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { RunEvent, RunManifest } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import { listRuns } from '../store/runReader.js';
import { LiveRun } from './liveRun.js';
import { runFacts, type RunFacts } from './runListing.js';

export interface RunEntry {
  dir: string;
  live?: LiveRun;
  problem?: string;
}

/** A run as a list of runs shows it: opened (live) or, when nothing opened it, its facts and manifest. */
export interface RunRow extends RunEntry {
  manifest?: RunManifest;
  facts?: RunFacts;
}

/**
 * How a host names runs in the protocol (`runDir` in params and results). The editor names a run by its absolute
 * directory; `coevolve view` by a short key it made when it listed the run, so a browser never sends a path.
 */
export interface RunResolver {
  /** The live run a reference names; throws when it names none. */
  get(ref: string): LiveRun;
  /** The run directories the host shows, newest first, with their manifests (no event log is read). */
  listed(): readonly { dir: string; manifest: RunManifest }[];
  /** The reference of a listed run directory. */
  refOf(dir: string): string;
  /** The path a viewer shows (and the editor opens) for a file of a run. */
  displayPath(dir: string, path: string): string;
  /**
   * The directory a reference names (checked as `get` checks it) and its live run if one is open already, without
   * opening one: a reader that needs less than the whole index (the dashboard's RunOutline) reads less. Without it,
   * such readers use `get`.
   */
  find?(ref: string): { dir: string; live?: LiveRun };
}

/**
 * A run a viewer asked for whose folder is not there any more (deleted or moved since it was listed or opened).
 * Its message is what an open viewer shows in place of the run.
 */
export class RunGoneError extends Error {
  constructor(readonly dir: string) {
    super(`the run ${dir} is gone: its folder was deleted or moved`);
    this.name = 'RunGoneError';
  }
}

/**
 * The runs the editor knows, one LiveRun per run directory shared by the tree, the viewers and the dashboard, so
 * the event log of a run is read once whoever asks. Run directories are found under the output folders given by
 * `outputDirs()` (the `coevolve.runsFolder` of each workspace folder).
 */
export class RunRegistry implements RunResolver {
  private readonly runs = new Map<string, RunEntry>();
  private readonly listeners = new Set<(dir: string, events: RunEvent[]) => void>();
  private readonly removeListeners = new Set<(dir: string) => void>();

  constructor(readonly outputDirs: () => string[]) {}

  /** Run directories, newest first; a run that cannot be read is listed with its problem. */
  list(): RunEntry[] {
    const found = this.outputDirs().flatMap((folder) => listRuns(folder));
    return [...found.map((r) => this.entry(r.dir)), ...this.unlisted(found)];
  }

  /**
   * The runs of the output folders, newest first, for a list of runs (the Runs tree's root): a run already opened,
   * or running (it is tailed from now on), from its live index; any other from its manifest and runFacts, without
   * reading its event log, so a thousand finished runs cost a few small reads each and stay unopened until asked.
   */
  rows(): RunRow[] {
    return this.listed().map(({ dir, manifest }) => {
      const known = this.runs.get(dir);
      if (known) return known;
      const facts = runFacts(dir, manifest);
      return facts.status === 'running' ? this.entry(dir) : { dir, manifest, facts };
    });
  }

  /**
   * The runs opened so far (the ones a refresh reads). No folder is checked: a deletion is learned from the watcher
   * (refresh), the lists' folder read and the poll's forgetGone, so a run deleted unseen may stay here until then.
   */
  opened(): RunEntry[] {
    return [...this.runs.values()];
  }

  listed(): { dir: string; manifest: RunManifest }[] {
    const found = this.outputDirs().flatMap((folder) => listRuns(folder));
    return [...found, ...this.unlisted(found).map((e) => ({ dir: e.dir, manifest: e.live!.manifest }))];
  }

  /**
   * The known runs the folder read did not find that are still there and open: runs opened explicitly (e.g. a
   * second run to compare) stay known outside the output folders. Each is checked once, as no folder read names it;
   * the gone are forgotten. A listed run costs no check: being listed says it is there.
   */
  private unlisted(found: readonly { dir: string }[]): (RunEntry & { live: LiveRun })[] {
    const seen = new Set(found.map((r) => r.dir));
    const rest = [...this.runs.values()].filter((e) => !seen.has(e.dir));
    const gone = rest.filter((e) => !existsSync(e.dir)).map((e) => e.dir);
    this.forget(gone);
    return rest.filter((e): e is RunEntry & { live: LiveRun } => e.live !== undefined && !gone.includes(e.dir));
  }

  private entry(dir: string): RunEntry {
    let e = this.runs.get(dir);
    if (!e) {
      try {
        e = { dir, live: new LiveRun(dir) };
      } catch (err) {
        e = { dir, problem: err instanceof Error ? err.message : String(err) };
      }
      this.runs.set(dir, e);
    }
    return e;
  }

  /**
   * The live run of a directory, opening it if needed; throws RunGoneError when its folder is not there, and the
   * reader's message when it cannot be read.
   */
  get(dir: string): LiveRun {
    this.throwIfGone(resolve(dir));
    const e = this.entry(resolve(dir));
    if (!e.live) {
      this.runs.delete(resolve(dir)); // try again next time: the manifest may not be written yet
      throw new Error(e.problem ?? `${dir} cannot be read`);
    }
    return e.live;
  }

  find(dir: string): { dir: string; live?: LiveRun } {
    this.throwIfGone(resolve(dir));
    const live = this.runs.get(resolve(dir))?.live;
    return { dir: resolve(dir), ...(live ? { live } : {}) };
  }

  /** Whether a run directory is open (tailed) here. */
  isOpen(dir: string): boolean {
    return this.runs.get(dir)?.live !== undefined;
  }

  refOf(dir: string): string {
    return dir;
  }

  displayPath(_dir: string, path: string): string {
    return path;
  }

  /** Reads what was appended to a run's event log and tells the listeners. */
  refresh(dir: string): RunEvent[] {
    if (!existsSync(dir)) {
      // A deleted run (or runs) folder reaches the watcher as this refresh: forgetting the runs at or under it tells
      // the tree and the viewers, with no other check. A gone folder the registry did not know still redraws the
      // tree (it may have been listed).
      const gone = [...this.runs.keys()].filter((d) => d === dir || d.startsWith(dir + sep));
      this.forget(gone);
      if (!gone.includes(dir)) this.emit(dir, []);
      return [];
    }
    const e = this.runs.get(dir);
    if (!e?.live) {
      if (existsSync(runLayout.manifest(dir))) this.runs.delete(dir);
      this.emit(dir, []);
      return [];
    }
    const events = e.live.refresh();
    this.emit(dir, events);
    return events;
  }

  refreshAll(): void {
    for (const dir of [...this.runs.keys()]) this.refresh(dir);
  }

  /**
   * Forgets every known run whose folder is gone and returns their directories: what the watcher's slow poll does
   * for deletions no watcher event names (a watcher may report only the top folder of a deleted tree, and runs
   * outside the output folders are not watched). One read of each output folder answers for its runs; a run
   * outside them (a compared run) is checked on its own.
   */
  forgetGone(): string[] {
    const names = new Map(this.outputDirs().map((f) => [resolve(f), namesIn(f)]));
    const gone = [...this.runs.keys()].filter((dir) => {
      const inFolder = names.get(dirname(dir)); // undefined: outside the output folders, or one that cannot be read
      return inFolder === undefined ? !existsSync(dir) : inFolder === null || !inFolder.has(basename(dir));
    });
    this.forget(gone);
    return gone;
  }

  /** Forgets runs and tells the listeners: a change, so the tree redraws, and a removal, so their viewers ask again. */
  private forget(dirs: readonly string[]): void {
    const known = dirs.filter((dir) => this.runs.delete(dir));
    for (const dir of known) {
      this.emit(dir, []);
      for (const l of this.removeListeners) l(dir);
    }
  }

  /** Throws RunGoneError for a run directory that is not there, forgetting the run if it was known. */
  private throwIfGone(dir: string): void {
    if (existsSync(dir)) return;
    this.forget([dir]);
    throw new RunGoneError(dir);
  }

  /** Called with the directory of each run forgotten because its folder is gone. */
  onDidRemove(listener: (dir: string) => void): { dispose(): void } {
    this.removeListeners.add(listener);
    return { dispose: () => void this.removeListeners.delete(listener) };
  }

  onDidChange(listener: (dir: string, events: RunEvent[]) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  private emit(dir: string, events: RunEvent[]): void {
    for (const l of this.listeners) l(dir, events);
  }

  /** The run directory that contains a path (an events.jsonl or manifest.json the watcher saw). */
  static runDirOf(path: string): string {
    return resolve(join(path, '..'));
  }
}

/**
 * The entry names of an output folder; null when it is not there (its runs are gone); undefined when it cannot be
 * read now (EACCES, EMFILE), so its runs are checked one by one as a run outside the folders is.
 */
function namesIn(folder: string): Set<string> | null | undefined {
  try {
    return new Set(readdirSync(folder));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : undefined;
  }
}
