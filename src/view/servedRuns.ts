import { existsSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { RunManifest } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import { readManifest } from '../store/runReader.js';
import type { LiveRun } from '../viewdata/liveRun.js';
import { RunRegistry, type RunResolver } from '../viewdata/runRegistry.js';
import { safeKey } from '../webview/browserLinks.js';
import { auditRunDir } from './runAudit.js';

/**
 * The runs `coevolve view` serves, named by short keys (the run directory's name, made unique), so a browser never
 * sends a path: a key from a URL is looked up in this table and nothing else. Sources are run directories or
 * folders of runs, resolved once when the server starts; inside a folder only real directories count (a link there
 * is not followed). A run is opened only after `auditRunDir` found no link or special file in it.
 */
export class ServedRuns implements RunResolver {
  readonly registry = new RunRegistry(() => []);
  private readonly dirOfKey = new Map<string, string>();
  private readonly keyOfDir = new Map<string, string>();
  private readonly audited = new Map<string, string | null>();
  /** Manifests are written once when a run starts; each is read the first time its directory is seen. */
  private readonly manifests = new Map<string, RunManifest>();
  private readonly sources: string[];

  constructor(sources: string[]) {
    this.sources = sources.map((s) => {
      if (!existsSync(s)) throw new Error(`${s}: no such run directory or folder of runs`);
      return realpathSync(s);
    });
  }

  /** The last listing, kept while the same run directories are found (sorting a thousand runs is not free). */
  private last: { dirs: string; runs: readonly { dir: string; manifest: RunManifest }[] } | undefined;

  /** Run directories of the sources, newest first; new runs get a key the first time they are seen. */
  listed(): readonly { dir: string; manifest: RunManifest }[] {
    const out: { dir: string; manifest: RunManifest }[] = [];
    for (const source of this.sources) {
      const dirs = existsSync(runLayout.manifest(source)) ? [source] : childDirs(source, this.manifests);
      for (const dir of dirs) {
        let manifest = this.manifests.get(dir);
        if (!manifest) {
          try {
            manifest = readManifest(dir);
          } catch {
            continue; // not a run (or a newer format): the runs list shows runs this version can read
          }
          this.manifests.set(dir, manifest);
        }
        out.push({ dir, manifest });
        this.keyFor(dir);
      }
    }
    const dirs = out.map((r) => r.dir).join('\0');
    if (this.last?.dirs === dirs) return this.last.runs;
    // ISO 8601 times of one format order as strings do; localeCompare (ICU collation) cost ~10 ms per thousand.
    const runs = out.sort((a, b) => (a.manifest.startedAt < b.manifest.startedAt ? 1 : a.manifest.startedAt > b.manifest.startedAt ? -1 : 0));
    this.last = { dirs, runs };
    return runs;
  }

  private keyFor(dir: string): string {
    const known = this.keyOfDir.get(dir);
    if (known) return known;
    const base = basename(dir).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200) || 'run';
    let key = safeKey.test(base) ? base : `run_${base}`;
    for (let n = 2; this.dirOfKey.has(key); n++) key = `${base}-${n}`;
    this.dirOfKey.set(key, dir);
    this.keyOfDir.set(dir, key);
    return key;
  }

  /** The directory a key names, or undefined: keys that are not in the table name nothing. */
  dirOf(ref: string): string | undefined {
    if (!safeKey.test(ref)) return undefined;
    if (!this.dirOfKey.has(ref)) this.listed();
    return this.dirOfKey.get(ref);
  }

  get(ref: string): LiveRun {
    return this.registry.get(this.audit(ref));
  }

  /** The audited directory of a key and its live run if open, without opening it (the dashboard reads an outline). */
  find(ref: string): { dir: string; live?: LiveRun } {
    return this.registry.find(this.audit(ref));
  }

  /** The directory a key names, once auditRunDir found nothing in it that must not be served; throws otherwise. */
  private audit(ref: string): string {
    const dir = this.dirOf(ref);
    if (!dir) throw new Error(`no run named "${ref.slice(0, 80)}" is served here`);
    let problem = this.audited.get(dir);
    if (problem === undefined) this.audited.set(dir, (problem = auditRunDir(dir) ?? null));
    if (problem) throw new Error(`run "${ref}" is not served: ${problem}`);
    return dir;
  }

  refOf(dir: string): string {
    return this.keyFor(dir);
  }

  displayPath(dir: string, path: string): string {
    return relative(dir, path);
  }

  /**
   * Keys of the runs opened so far (their event logs are tailed). A run that was audited but only outlined (its
   * dashboard was asked for) is not among them: the live feed watches its log's size like any listed run's.
   */
  opened(): { key: string; dir: string }[] {
    return [...this.audited.entries()].filter(([dir, p]) => p === null && this.registry.isOpen(dir)).map(([dir]) => ({ key: this.keyFor(dir), dir }));
  }
}

/**
 * Run directories directly in a folder; ones already known are not checked again (a run directory stays one). The
 * entry types come from the listing (d_type), so a link is never taken for a directory and no entry is lstat'ed.
 */
function childDirs(folder: string, known: ReadonlyMap<string, unknown>): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    if (!e.isDirectory()) return [];
    const p = join(folder, e.name);
    return known.has(p) || existsSync(runLayout.manifest(p)) ? [p] : [];
  });
}
