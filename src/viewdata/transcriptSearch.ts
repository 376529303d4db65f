import { existsSync } from 'node:fs';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import { runLayout } from '../store/layout.js';
import { readRollout } from '../store/runReader.js';
import type { RolloutRow, SearchHit, SearchResult } from '../webview/protocol.js';
import { stepText } from './stepText.js';

interface IndexedRollout {
  /** Lowercased text of each step, and the step's id and source. */
  steps: { id: number; source: string; text: string }[];
}

const snippetRadius = 60;

/**
 * Full-text search across the transcripts of one run. A rollout file never changes once written, so each is read
 * once, the first time a search needs it, and its step texts stay in memory; later searches only scan strings.
 * The match is a case-insensitive substring, the same as the rollout viewer's own search.
 */
export class TranscriptIndex {
  private readonly rollouts = new Map<string, IndexedRollout | null>();

  constructor(private readonly dir: string) {}

  private indexed(row: RolloutRow): IndexedRollout | null {
    const hit = this.rollouts.get(row.id);
    if (hit !== undefined) return hit;
    let record: RolloutRecord;
    try {
      if (!existsSync(runLayout.rollout(this.dir, row.generation, row.id))) return null; // not written yet: ask again later
      record = readRollout(this.dir, { generation: row.generation, id: row.id });
    } catch {
      this.rollouts.set(row.id, null);
      return null;
    }
    const entry: IndexedRollout = {
      steps: record.steps.map((s) => ({ id: s.step_id, source: s.source, text: stepText(s) })),
    };
    this.rollouts.set(row.id, entry);
    return entry;
  }

  /** Rollouts (of `rows`, in their order) whose transcript contains `query`; the first `limit` with a snippet. */
  search(rows: readonly RolloutRow[], query: string, limit: number, runDir: string): SearchResult {
    const q = query.toLowerCase();
    const hits: SearchHit[] = [];
    let total = 0;
    let searched = 0;
    for (const row of rows) {
      const r = this.indexed(row);
      if (!r) continue;
      searched++;
      let first: IndexedRollout['steps'][number] | undefined;
      let at = -1;
      let matches = 0;
      for (const s of r.steps) {
        const i = s.text.indexOf(q);
        if (i < 0) continue;
        matches++;
        if (!first) {
          first = s;
          at = i;
        }
      }
      if (!first) continue;
      total++;
      if (hits.length < limit) hits.push({ row, stepId: first.id, source: first.source, snippet: snippet(first.text, at, q.length), matches });
    }
    return { runDir, query, total, hits, searched };
  }
}

function snippet(text: string, at: number, length: number): string {
  const from = Math.max(0, at - snippetRadius);
  const to = Math.min(text.length, at + length + snippetRadius);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}
