import { isMap, visit, type Document, type YAMLError } from 'yaml';
import type { SpecSourceMap } from './sourceMap.js';
import { keyText } from './sourceMap.js';
import type { TextRange } from './problems.js';

export interface PositionedMessage {
  range: TextRange;
  message: string;
}

/**
 * Rewrites the yaml package's errors and warnings for people who write specs: what is wrong, and how to fix it.
 * The range is the yaml package's own (the offending token), widened to one character when it is empty.
 */
export function describeYamlError(err: YAMLError, doc: Document, map: SpecSourceMap, text: string): PositionedMessage {
  const [start, rawEnd] = err.pos;
  let end = rawEnd > start ? rawEnd : Math.min(start + 1, text.length);
  const found = JSON.stringify(text.slice(start, end));
  let message: string;
  switch (err.code) {
    case 'TAB_AS_INDENT':
      message = 'tab character used for indentation; YAML indents with spaces only — replace the tab with spaces';
      break;
    case 'DUPLICATE_KEY': {
      const first = firstOccurrence(doc, start, map);
      message = `duplicate key ${found}: each key may appear only once in a mapping${first ? ` (first at line ${first.line})` : ''}`;
      break;
    }
    case 'MULTIPLE_DOCS': {
      const lineEnd = text.indexOf('\n', start);
      end = lineEnd > start ? lineEnd : end;
      message = 'a second YAML document starts here ("---"); put one spec per file';
      break;
    }
    case 'BLOCK_AS_IMPLICIT_KEY':
      message = 'a "key: value" pair cannot start inside a value on the same line; quote the value if the colon is part of the text, or put the mapping on its own indented lines';
      break;
    case 'MULTILINE_IMPLICIT_KEY':
      message = 'a key must fit on one line; this looks like a value that lost its indentation or a missing ":"';
      break;
    case 'BAD_INDENT':
      message = `${lowerFirst(err.message)}; check this line's indentation against the lines above`;
      break;
    case 'MISSING_CHAR':
      message = `${lowerFirst(err.message)} (YAML syntax)`;
      break;
    case 'TAG_RESOLVE_FAILED':
      message = `${lowerFirst(err.message)}; specs use plain YAML values, without custom "!" tags`;
      break;
    default:
      message = `YAML syntax error: ${lowerFirst(err.message)}`;
  }
  return { range: map.offsets(start, end), message };
}

/** For a duplicate key at `offset`, where the same key first appears in its mapping. */
function firstOccurrence(doc: Document, offset: number, map: SpecSourceMap): TextRange | undefined {
  let result: TextRange | undefined;
  visit(doc, {
    Map(_, node) {
      if (!isMap(node)) return;
      const dup = node.items.find((p) => (p.key as { range?: number[] } | null)?.range?.[0] === offset);
      if (!dup) return;
      const first = node.items.find((p) => keyText(p.key) === keyText(dup.key));
      if (first && first !== dup) result = map.nodeRange(first.key);
      return visit.BREAK;
    },
  });
  return result;
}

function lowerFirst(s: string): string {
  return /^[A-Z](?![A-Z])/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s;
}
