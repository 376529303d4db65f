import type { RolloutRow, SearchHit, SearchResult } from '../webview/protocol.js';
import { TokenIndex } from './tokenIndex.js';
import { readTranscript } from './transcriptRead.js';

/**
 * One rollout's transcript as one string: the lowercased text of each step, joined by NUL, with where each step
 * starts. A query (without NUL) then matches inside one step, and one indexOf per rollout says whether it matches.
 */
interface IndexedRollout {
  text: string;
  starts: number[];
  ids: number[];
  sources: string[];
}

const separator = '\u0000';

const snippetRadius = 60;
/** How long one slice of the background build may read files before it lets other requests in. */
const sliceMs = 12;

/**
 * Full-text search across the transcripts of one run. A rollout file never changes once written, so each is read
 * once: in the background from the first request on (the table opening), in slices that leave the event loop to
 * other requests, and again for rollouts that finish later. Each rollout's step texts stay in memory and its words go
 * into an inverted index (TokenIndex), so a query verifies only the rollouts that can contain it instead of scanning
 * every transcript. The match is a case-insensitive substring, the same as the rollout viewer's own search.
 */
export class TranscriptIndex {
  private readonly rollouts = new Map<string, IndexedRollout | null>();
  /** Document number of each indexed rollout in `words` (rollouts that could not be read have none). */
  private readonly docOf = new Map<string, number>();
  private readonly docs: IndexedRollout[] = [];
  private readonly words = new TokenIndex();
  private readonly queue: RolloutRow[] = [];
  private readonly queued = new Set<string>();
  private building: Promise<void> | undefined;
  /** Time spent reading and indexing, and rollouts indexed (for bench:editor). */
  readonly stats = { buildMs: 0, indexed: 0 };

  constructor(private readonly dir: string) {}

  /** Queues the rollouts of `rows` not read yet and resolves when every queued rollout has been read. */
  ensure(rows: readonly RolloutRow[]): Promise<void> {
    for (const row of rows) {
      if (this.rollouts.has(row.id) || this.queued.has(row.id)) continue;
      this.queued.add(row.id);
      this.queue.push(row);
    }
    if (this.queue.length === 0) return this.building ?? Promise.resolve();
    return (this.building ??= this.build().finally(() => (this.building = undefined)));
  }

  private async build(): Promise<void> {
    while (this.queue.length > 0) {
      const t0 = performance.now();
      while (this.queue.length > 0 && performance.now() - t0 < sliceMs) {
        const row = this.queue.shift()!;
        this.queued.delete(row.id);
        this.add(row);
      }
      this.stats.buildMs += performance.now() - t0;
      if (this.queue.length > 0) await new Promise<void>((r) => setImmediate(r));
    }
  }

  private add(row: RolloutRow): void {
    const steps = readTranscript(this.dir, { generation: row.generation, id: row.id });
    if (steps === 'missing') return; // not written yet: asked again later
    if (steps === 'refused') {
      this.rollouts.set(row.id, null);
      return;
    }
    const texts = steps.map((st) => st.text.replaceAll(separator, ' '));
    const starts: number[] = [];
    let at = 0;
    for (const t of texts) {
      starts.push(at);
      at += t.length + 1;
    }
    const entry: IndexedRollout = { text: texts.join(separator), starts, ids: steps.map((st) => st.id), sources: steps.map((st) => st.source) };
    const doc = this.docs.push(entry) - 1;
    this.words.add(doc, entry.text);
    this.docOf.set(row.id, doc);
    this.rollouts.set(row.id, entry);
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
    const candidates = this.words.candidates(q, this.docs.length);
    const exact = candidates !== null && TokenIndex.exact(q);
    const hits: SearchHit[] = [];
    let total = 0;
    let searched = 0;
    for (const row of rows) {
      const doc = this.docOf.get(row.id);
      if (doc === undefined) continue;
      searched++;
      if (candidates && !candidates[doc]) continue;
      // A one-word query's candidates all match: the text is read only for the hits shown.
      if (exact && hits.length >= limit) {
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
