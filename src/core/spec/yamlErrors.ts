import { isCollection, isMap, visit, type Document, type YAMLError } from 'yaml';
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
      const dup = duplicateKey(doc, start, map);
      if (dup) return { range: dup.range, message: `duplicate key "${dup.name}": each key may appear only once in a mapping (first at line ${dup.first.line})` };
      message = `duplicate key ${found}: each key may appear only once in a mapping`;
      break;
    }
    case 'MULTIPLE_DOCS': {
      const lineEnd = text.indexOf('\n', start);
      end = lineEnd > start ? lineEnd : end;
      message = 'a second YAML document starts here ("---"); put one spec per file';
      break;
    }
    case 'BLOCK_AS_IMPLICIT_KEY': {
      // The offending value runs to the end of the line ("title: Task: minimal").
      const lineEnd = text.indexOf('\n', start);
      end = lineEnd > start ? lineEnd : text.length;
      message = 'a "key: value" pair cannot start inside a value on the same line; quote the value if the colon is part of the text, or put the mapping on its own indented lines';
      break;
    }
    case 'MULTILINE_IMPLICIT_KEY':
      message = 'a key must fit on one line; this looks like a value that lost its indentation or a missing ":"';
      break;
    case 'BAD_INDENT': {
      const flow = unclosedFlow(doc, start);
      if (flow) {
        const [open, close, what] = flow.map ? ['{', '}', 'mapping'] : ['[', ']', 'list'];
        return { range: map.offsets(flow.start, flow.end), message: `this ${what} opened with "${open}" is not closed; end it with "${close}" before the next key` };
      }
      message = `${lowerFirst(err.message)}; check this line's indentation against the lines above`;
      break;
    }
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

/** The innermost flow collection (`[...]` or `{...}`) that runs up to `offset` without being closed. */
function unclosedFlow(doc: Document, offset: number): { start: number; end: number; map: boolean } | undefined {
  let found: { start: number; end: number; map: boolean } | undefined;
  visit(doc, {
    Node(_, node) {
      if (!isCollection(node) || !node.flow || !node.range) return;
      const [start, end] = node.range;
      if (start < offset && end >= offset && (!found || start > found.start)) found = { start, end, map: isMap(node) };
    },
  });
  return found;
}

/** For a duplicate key starting at `offset`: its name, its whole range, and where the same key first appears. */
function duplicateKey(doc: Document, offset: number, map: SpecSourceMap): { name: string; range: TextRange; first: TextRange } | undefined {
  let result: { name: string; range: TextRange; first: TextRange } | undefined;
  visit(doc, {
    Map(_, node) {
      if (!isMap(node)) return;
      const dup = node.items.find((p) => (p.key as { range?: number[] } | null)?.range?.[0] === offset);
      if (!dup) return;
      const name = keyText(dup.key);
      const first = node.items.find((p) => keyText(p.key) === name);
      const range = map.nodeRange(dup.key);
      const firstRange = first && first !== dup ? map.nodeRange(first.key) : undefined;
      if (range && firstRange) result = { name, range, first: firstRange };
      return visit.BREAK;
    },
  });
  return result;
}

function lowerFirst(s: string): string {
  return /^[A-Z](?![A-Z])/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s;
}
