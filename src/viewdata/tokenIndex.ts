// An inverted index of words to the documents holding them, answering "which documents can contain this substring?"
// exactly (a superset, never missing one), so a substring search verifies only those. Hand-written rather than
// MiniSearch or FlexSearch: those match whole words or prefixes, and the transcript search is a substring search
// (the rollout viewer's own), so a query's first word may end a longer word and its last may begin one.

/** A word: letters, digits and underscores (Unicode-aware); everything else separates words. */
const word = /[\p{L}\p{N}_]+/gu;
/** What separates words (the complement of `word`). */
const nonWord = /[^\p{L}\p{N}_]+/u;

export class TokenIndex {
  /** Documents holding each word, ascending (documents are added in order). */
  private readonly postings = new Map<string, number[]>();

  /** Adds a document's text (already lowercased). Every text of document `doc` comes before any of `doc + 1`. */
  add(doc: number, text: string): void {
    // Each distinct word once (a Set of a split): a transcript repeats its words, and map updates were most of the cost.
    for (const t of new Set(text.split(nonWord))) {
      if (t === '') continue;
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = []));
      if (p[p.length - 1] !== doc) p.push(doc);
    }
  }

  get words(): number {
    return this.postings.size;
  }

  /**
   * Marks (1) the documents of `0 .. docs - 1` whose text can contain `query` (lowercased) as a substring; null when
   * the query has no word to look up (then every document can). A word of the query inside it, between separators,
   * must be a whole word of the text; the first may be the end of a longer word, the last the start of one, and a
   * query of one word may sit anywhere inside a word.
   */
  candidates(query: string, docs: number): Uint8Array | null {
    const parts = [...query.matchAll(word)].map((m) => {
      const at = m.index;
      const w = m[0];
      const openLeft = at === 0;
      const openRight = at + w.length === query.length;
      return { w, openLeft, openRight };
    });
    if (parts.length === 0) return null;
    // Whole words first: one map lookup each, and usually the fewest documents.
    parts.sort((a, b) => Number(a.openLeft || a.openRight) - Number(b.openLeft || b.openRight) || b.w.length - a.w.length);
    let result: Uint8Array | null = null;
    for (const { w, openLeft, openRight } of parts) {
      const mark = new Uint8Array(docs);
      const set = (p: number[]): void => {
        for (const d of p) if (d < docs && (!result || result[d])) mark[d] = 1;
      };
      if (!openLeft && !openRight) {
        const p = this.postings.get(w);
        if (p) set(p);
      } else {
        const fits = openLeft && openRight ? (t: string) => t.includes(w) : openLeft ? (t: string) => t.endsWith(w) : (t: string) => t.startsWith(w);
        for (const [t, p] of this.postings) if (fits(t)) set(p);
      }
      result = mark;
    }
    return result;
  }

  /**
   * Whether the candidates of `query` are exactly the documents containing it: a query that is one word (letters,
   * digits, underscores only) is in a text exactly when it is inside one of the text's words.
   */
  static exact(query: string): boolean {
    const m = [...query.matchAll(word)];
    return m.length === 1 && m[0]![0].length === query.length;
  }
}
