import type { RolloutRow, SearchHit, SearchResult } from '../webview/protocol.js';
import { runFileExists, runFileStats } from '../store/runFiles.js';
import { runRecordRelPath } from '../store/runPaths.js';
import { TokenIndex } from './tokenIndex.js';
import { readTranscript } from './transcriptRead.js';
import { fileKey, keepEntry, summaryKey, type StoredTranscript, type TranscriptStore } from './transcriptStore.js';

/**
 * One rollout's transcript as one string: the lowercased text of each step, joined by NUL, with where each step
 * starts. A query (without NUL) then matches inside one step, and one indexOf per rollout says whether it matches.
 */
interface IndexedRollout {
  text: string;
  starts: number[];
  ids: number[];
  sources: string[];
  /** The row it was read for (rows are kept across requests while their summary is the same) and its summaryKey. */
  row: RolloutRow;
  summary: string;
  /** As kept on disk. */
  stored: StoredTranscript;
}

const separator = '\u0000';

const snippetRadius = 60;
/** How long one slice of the background build may work before it lets other requests in. */
const sliceMs = 12;

/** Gives the event loop back (other requests, the page's assets) between slices of background work. */
const nextTurn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

/**
 * Full-text search across the transcripts of one run. A rollout file never changes once written, so each is read
 * once: in the background from the first request on (the dashboard opening), in slices that leave the event loop to
 * other requests, and again for rollouts that finish later (a live run). Each rollout's step texts stay in memory and
 * are kept on disk (TranscriptStore, outside the run directory) for the next session, which reads one file instead of
 * every rollout's; a stored text is used only while the rollout's summary and file are the ones it was read from.
 * Words go into an inverted index (TokenIndex), built in the background after the texts: a query verifies only the
 * rollouts that can contain it, and scans the texts not tokenized yet, so a search never waits for the tokens. The
 * match is a case-insensitive substring, the same as the rollout viewer's own search.
 */
export class TranscriptIndex {
  private readonly rollouts = new Map<string, IndexedRollout | null>();
  /** Document number of each indexed rollout (rollouts that could not be read have none). */
  private readonly docOf = new Map<string, number>();
  private readonly docs: IndexedRollout[] = [];
  private readonly words = new TokenIndex();
  /** Documents 0 .. tokenized - 1 are in `words`; later ones are scanned. */
  private tokenized = 0;
  private tokenizing: Promise<void> | undefined;
  private readonly queue: RolloutRow[] = [];
  private readonly queued = new Set<string>();
  private building: Promise<void> | undefined;
  /** The rows of the last ensure, all indexed or queued then. */
  private lastRows: readonly RolloutRow[] | undefined;
  /** The stored index: undefined until read (once, by the first build), null when there is none to use. */
  private stored: Map<string, StoredTranscript> | null | undefined;
  private storedWasted = 0;
  /** Entries read from files since the last write to the store. */
  private unsaved: StoredTranscript[] = [];
  /**
   * Time spent reading and indexing, rollouts indexed, how many of them came from the stored index, and the time
   * until the texts of everything asked for were in (before the tokens) (for bench:editor).
   */
  readonly stats = { buildMs: 0, indexed: 0, fromStore: 0, tokenMs: 0, verifyMs: 0 };
  /** Rollouts taken from the store whose files are not checked yet (verify). */
  private unverified: IndexedRollout[] = [];

  /** `store`: where the index is kept between sessions (none: read every rollout file each session). */
  constructor(private readonly dir: string, private readonly store?: TranscriptStore) {}

  /** Queues the rollouts of `rows` not read yet and resolves when every queued rollout's text is in (searchable). */
  ensure(rows: readonly RolloutRow[]): Promise<void> {
    // Every request of the table and search asks with the table's rows: the same array while no rollout finished.
    if (rows === this.lastRows && this.queue.length === 0) return this.building ?? Promise.resolve();
    this.lastRows = rows;
    for (const row of rows) {
      const known = this.rollouts.get(row.id);
      if ((known !== undefined && (known === null || known.row === row || known.summary === summaryKey(row))) || this.queued.has(row.id)) continue;
      this.queued.add(row.id);
      this.queue.push(row);
    }
    if (this.queue.length === 0) return this.building ?? Promise.resolve();
    return (this.building ??= this.build().finally(() => (this.building = undefined)));
  }

  /** Resolves when every text read so far is tokenized too (bench:editor; searches never wait for it). */
  async settled(): Promise<void> {
    while (this.building || this.tokenizing) await (this.building ?? this.tokenizing);
  }

  private async build(): Promise<void> {
    if (this.stored === undefined) await this.readStore();
    while (this.queue.length > 0) {
      const t0 = performance.now();
      while (this.queue.length > 0 && performance.now() - t0 < sliceMs) {
        const row = this.queue.shift()!;
        this.queued.delete(row.id);
        this.add(row);
      }
      this.stats.buildMs += performance.now() - t0;
      if (this.queue.length > 0) await nextTurn();
    }
    this.save();
    this.tokenizing ??= this.verify().then(() => this.tokenize()).finally(() => (this.tokenizing = undefined));
  }

  /** Reads the stored index, its lines parsed in slices (a 10,000-rollout run's is ~25 MB). */
  private async readStore(): Promise<void> {
    let t0 = performance.now();
    let lines: string[] | undefined;
    try {
      lines = this.store?.lines();
    } catch {
      lines = undefined; // a cache: unreadable means rebuilt
    }
    const entries = new Map<string, StoredTranscript>();
    for (let i = 0; lines && i < lines.length; ) {
      while (i < lines.length && performance.now() - t0 < sliceMs) this.storedWasted += keepEntry(entries, lines[i++]!);
      this.stats.buildMs += performance.now() - t0;
      await nextTurn();
      t0 = performance.now();
    }
    this.stored = lines ? entries : null;
  }

  /**
   * Checks that each rollout taken from the store still has the file it was read from (a file changed in place,
   * which the run writer never does, or replaced by a link), in slices after the texts are in; a rollout whose file
   * changed is read again, one that became a link or a special file leaves search.
   */
  private async verify(): Promise<void> {
    const changed: RolloutRow[] = [];
    while (this.unverified.length > 0) {
      const t0 = performance.now();
      while (this.unverified.length > 0 && performance.now() - t0 < sliceMs) {
        const r = this.unverified.pop()!;
        if (this.rollouts.get(r.row.id) !== r) continue; // read again meanwhile
        const st = runFileStats(this.dir, runRecordRelPath({ kind: 'rollout', generation: r.row.generation, id: r.row.id }));
        if (st && fileKey(st) === r.stored.file) continue;
        this.stored?.delete(r.row.id);
        this.rollouts.delete(r.row.id);
        this.storedWasted++;
        changed.push(r.row);
      }
      this.stats.verifyMs += performance.now() - t0;
      if (this.unverified.length > 0) await nextTurn();
    }
    if (changed.length > 0) {
      this.lastRows = undefined;
      await this.ensure(changed);
    }
  }

  /** Writes what was read from rollout files since the last write (best effort: it is a cache). */
  private save(): void {
    if (!this.store || (this.unsaved.length === 0 && this.storedWasted === 0)) return;
    try {
      // Lines of no use (rollouts gone or read again, duplicates from another viewer): write the file anew.
      if (this.storedWasted > 0 || this.stored === null) this.store.rewrite(this.docs.map((d) => d.stored));
      else this.store.append(this.unsaved);
      this.stored = new Map();
      this.storedWasted = 0;
      this.unsaved = [];
    } catch {
      // an unwritable cache folder: the index still works, the next session reads the files again
    }
  }

  /** Tokenizes the texts not in `words` yet, in slices. */
  private async tokenize(): Promise<void> {
    while (this.tokenized < this.docs.length) {
      const t0 = performance.now();
      while (this.tokenized < this.docs.length && performance.now() - t0 < sliceMs) {
        const d = this.tokenized++;
        this.words.add(d, this.docs[d]!.text);
      }
      this.stats.tokenMs += performance.now() - t0;
      if (this.tokenized < this.docs.length) await nextTurn();
    }
  }

  private add(row: RolloutRow): void {
    const summary = summaryKey(row);
    const kept = this.stored?.get(row.id);
    let entry: StoredTranscript;
    let fromStore = false;
    if (kept && kept.generation === row.generation && kept.summary === summary) {
      // The same rollout as stored (its summary unchanged): its file is checked after the texts are in (verify).
      entry = kept;
      fromStore = true;
      this.stats.fromStore++;
    } else {
      if (kept) this.storedWasted++;
      const rel = runRecordRelPath({ kind: 'rollout', generation: row.generation, id: row.id });
      // The file's identity before it is read: a file changed after this is seen as changed next time.
      const st = runFileStats(this.dir, rel);
      if (!st) {
        if (!runFileExists(this.dir, rel)) {
          this.lastRows = undefined; // not written yet: asked again with the next request
          return;
        }
        this.rollouts.set(row.id, null); // a link, a FIFO: refused
        return;
      }
      const steps = readTranscript(this.dir, { generation: row.generation, id: row.id });
      if (steps === 'missing') {
        this.lastRows = undefined;
        return;
      }
      if (steps === 'refused') {
        this.rollouts.set(row.id, null);
        return;
      }
      entry = { id: row.id, generation: row.generation, summary, file: fileKey(st), ids: steps.map((x) => x.id), sources: steps.map((x) => x.source), text: steps.map((x) => x.text.replaceAll(separator, ' ')).join(separator) };
      this.unsaved.push(entry);
    }
    // Where each step starts in the joined text (none for a rollout without steps).
    const starts: number[] = entry.ids.length > 0 ? [0] : [];
    if (entry.ids.length > 0) for (let i = entry.text.indexOf(separator); i >= 0; i = entry.text.indexOf(separator, i + 1)) starts.push(i + 1);
    const indexed: IndexedRollout = { text: entry.text, starts, ids: entry.ids, sources: entry.sources, row, summary, stored: entry };
    const before = this.docOf.get(row.id);
    if (before !== undefined) {
      // Played again (a new summary): the old document stays numbered but is never a hit again.
      this.docs[before] = { ...this.docs[before]!, text: '', starts: [0] };
      this.storedWasted++;
    }
    const doc = this.docs.push(indexed) - 1;
    this.docOf.set(row.id, doc);
    this.rollouts.set(row.id, indexed);
    if (fromStore) this.unverified.push(indexed);
    this.stats.indexed++;
  }

  /** Rollouts (of `rows`, in their order) whose transcript contains `query`; the first `limit` with a snippet. */
  async search(rows: readonly RolloutRow[], query: string, limit: number, runDir: string): Promise<SearchResult> {
    await this.ensure(rows);
    return this.searchIndexed(rows, query, limit, runDir);
  }

  /** The search over what is indexed now (no waiting). */
  searchIndexed(rows: readonly RolloutRow[], query: string, limit: number, runDir: string): SearchResult {
    // NUL joins the steps of a transcript and is never inside one (replaced by a space when indexed).
    const q = query.toLowerCase().replaceAll(separator, ' ');
    // Candidates among the tokenized documents; the ones not tokenized yet are scanned.
    const tokenized = this.tokenized;
    const candidates = this.words.candidates(q, tokenized);
    const exact = candidates !== null && TokenIndex.exact(q);
    const hits: SearchHit[] = [];
    let total = 0;
    let searched = 0;
    for (const row of rows) {
      const doc = this.docOf.get(row.id);
      if (doc === undefined) continue;
      searched++;
      if (candidates && doc < tokenized && !candidates[doc]) continue;
      // A one-word query's candidates all match: the text is read only for the hits shown.
      if (exact && doc < tokenized && hits.length >= limit) {
        total++;
        continue;
      }
      const r = this.docs[doc]!;
      const at = r.text.indexOf(q);
      if (at < 0) continue;
      total++;
      // Which step, a snippet and how many steps match: only for the hits shown.
      if (hits.length < limit) hits.push(hitOf(row, r, q, at));
    }
    return { runDir, query, total, hits, searched };
  }
}

function hitOf(row: RolloutRow, r: IndexedRollout, q: string, at: number): SearchHit {
  let step = 0;
  while (step + 1 < r.starts.length && r.starts[step + 1]! <= at) step++;
  let matches = 0;
  for (let i = step; i < r.starts.length; i++) {
    const from = r.starts[i]!;
    const to = i + 1 < r.starts.length ? r.starts[i + 1]! - 1 : r.text.length;
    const found = r.text.indexOf(q, from);
    if (found >= 0 && found + q.length <= to) matches++;
  }
  const from = r.starts[step]!;
  const to = step + 1 < r.starts.length ? r.starts[step + 1]! - 1 : r.text.length;
  return { row, stepId: r.ids[step]!, source: r.sources[step]!, snippet: snippet(r.text.slice(from, to), at - from, q.length), matches };
}

function snippet(text: string, at: number, length: number): string {
  const from = Math.max(0, at - snippetRadius);
  const to = Math.min(text.length, at + length + snippetRadius);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}
