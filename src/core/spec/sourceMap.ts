import { isAlias, isMap, isNode, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';
import { startOfFile, type SpecPath, type TextRange } from './problems.js';

interface Step {
  node: unknown;
  /** The mapping entry whose value is `node`; absent for list items and the document root. */
  pair?: Pair;
}

/**
 * Maps spec paths (as zod reports them) back to ranges in the YAML text, so a problem covers exactly the node it is
 * about: the value for a wrong value, the key for an unknown key, the parent key for a missing field.
 */
export class SpecSourceMap {
  constructor(
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
    private readonly text: string,
  ) {}

  /**
   * The value at `path`; an empty value (`key:`) falls back to its key. A path the file does not spell out (a field
   * left to its default) is reported where that field is missing.
   */
  value(path: SpecPath): TextRange {
    const trail = this.walk(path);
    if (trail.length < path.length + 1) return this.missing(path.slice(0, trail.length));
    for (let i = trail.length - 1; i >= 0; i--) {
      const step = trail[i]!;
      const r = this.nodeRange(step.node) ?? this.nodeRange(step.pair?.key);
      if (r) return r;
    }
    return startOfFile;
  }

  /** The key of the last segment of `path` (falls back to the value when the path ends in a list index). */
  key(path: SpecPath): TextRange {
    const trail = this.walk(path);
    const last = trail[trail.length - 1];
    if (trail.length === path.length + 1 && last?.pair) return this.nodeRange(last.pair.key) ?? this.value(path);
    return this.value(path);
  }

  /**
   * Where to report that the field at `path` is missing: the key of the mapping that lacks it, or — for the top
   * level and list items, which have no key — the first key of that mapping.
   */
  missing(path: SpecPath): TextRange {
    const parentPath = path.slice(0, -1);
    const trail = this.walk(parentPath);
    if (trail.length !== parentPath.length + 1) return this.missing(parentPath.slice(0, trail.length));
    const parent = trail[trail.length - 1]!;
    if (parent.pair) return this.nodeRange(parent.pair.key) ?? this.value(parentPath);
    const node = resolve(this.doc, parent.node);
    if (isMap(node) && node.items.length > 0) return this.nodeRange(node.items[0]!.key) ?? this.value(parentPath);
    return this.value(parentPath);
  }

  /** A range from character offsets; trailing whitespace and newlines are trimmed so a range ends on its last character
   * (a one-character range is kept as is, so a stray tab stays visible). */
  offsets(start: number, end: number): TextRange {
    let e = Math.min(end, this.text.length);
    while (e > start + 1 && /\s/.test(this.text[e - 1]!)) e--;
    const a = this.lineCounter.linePos(start);
    const b = this.lineCounter.linePos(e);
    return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
  }

  nodeRange(node: unknown): TextRange | undefined {
    if (!isNode(node)) return undefined;
    const range = (node as Node).range;
    if (!range || range[1] <= range[0]) return undefined;
    return this.offsets(range[0], range[1]);
  }

  private walk(path: SpecPath): Step[] {
    const trail: Step[] = [{ node: this.doc.contents }];
    let current: unknown = this.doc.contents;
    for (const seg of path) {
      const node = resolve(this.doc, current);
      if (isMap(node)) {
        const pair = node.items.find((p) => keyText(p.key) === String(seg));
        if (!pair) break;
        current = pair.value;
        trail.push({ node: current, pair });
      } else if (isSeq(node) && Number.isInteger(Number(seg))) {
        current = node.items[Number(seg)];
        if (current === undefined) break;
        trail.push({ node: current });
      } else {
        break;
      }
    }
    return trail;
  }
}

/** Follows an alias (`*name`) to the node it stands for, so paths can go through anchors. */
function resolve(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

export function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}
