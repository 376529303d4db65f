import * as assert from 'node:assert/strict';
import { cursorAt, keyPathAt } from '../../../src/extension/authoring/yamlCursor.js';

/** Splits a text with one `‸` marking the cursor into the text and its 0-based line and character. */
function at(marked: string): [string, number, number] {
  const index = marked.indexOf('‸');
  assert.ok(index >= 0, 'the text marks the cursor with ‸');
  const text = marked.slice(0, index) + marked.slice(index + 1);
  const before = marked.slice(0, index).split('\n');
  return [text, before.length - 1, before[before.length - 1]!.length];
}

describe('authoring: reading the cursor position in a spec', () => {
  it('knows the top-level mapping on an empty line and lists the keys already there', () => {
    const c = cursorAt(...at('apiVersion: coevolve/v1\nkind: Environment\n‸\nid: x\n'));
    assert.equal(c.kind, 'key');
    if (c.kind !== 'key') return;
    assert.deepEqual(c.path, []);
    assert.deepEqual(c.existingKeys.sort(), ['apiVersion', 'id', 'kind']);
    assert.equal(c.prefix, '');
  });

  it('finds nested mappings from indentation, with the typed prefix', () => {
    const c = cursorAt(...at('sandbox:\n  image: x\n  limits:\n    memoryMb: 4\n    pi‸\n'));
    assert.equal(c.kind, 'key');
    if (c.kind !== 'key') return;
    assert.deepEqual(c.path, ['sandbox', 'limits']);
    assert.equal(c.prefix, 'pi');
    assert.equal(c.start, 4);
    assert.deepEqual(c.existingKeys, ['memoryMb']);
  });

  it('counts list items and keeps keys of other items apart', () => {
    const text = 'sandbox:\n  files:\n    - path: a\n      content: b\n    - path: c\n      ‸\n    - path: d\n      mode: "644"\n';
    const c = cursorAt(...at(text));
    assert.equal(c.kind, 'key');
    if (c.kind !== 'key') return;
    assert.deepEqual(c.path, ['sandbox', 'files', 1]);
    assert.deepEqual(c.existingKeys, ['path']);
  });

  it('reads a key typed right after a dash as the first key of a new item', () => {
    const c = cursorAt(...at('user:\n  facts:\n    - id: a\n      text: b\n    - i‸\n'));
    assert.equal(c.kind, 'key');
    if (c.kind !== 'key') return;
    assert.deepEqual(c.path, ['user', 'facts', 1]);
    assert.deepEqual(c.existingKeys, []);
  });

  it('handles lists written flush with their key', () => {
    const c = cursorAt(...at('files:\n- path: a\n  ‸\n'));
    assert.equal(c.kind, 'key');
    if (c.kind === 'key') assert.deepEqual(c.path, ['files', 0]);
  });

  it('skips block scalars above the cursor and offers nothing inside one', () => {
    const text = 'verifier:\n  script: |\n    echo: not a key\n    exit 0\n  ti‸\n';
    const c = cursorAt(...at(text));
    assert.equal(c.kind, 'key');
    if (c.kind === 'key') {
      assert.deepEqual(c.path, ['verifier']);
      assert.deepEqual(c.existingKeys, ['script']);
    }
    const inside = cursorAt(...at('verifier:\n  script: |\n    ech‸\n'));
    assert.deepEqual(inside, { kind: 'none', reason: 'block-scalar' });
  });

  it('reads a value position after "key: "', () => {
    const c = cursorAt(...at('persona:\n  expertise: nov‸\n'));
    assert.equal(c.kind, 'value');
    if (c.kind !== 'value') return;
    assert.deepEqual(c.path, ['persona', 'expertise']);
    assert.equal(c.prefix, 'nov');
    assert.equal(c.start, 13);
  });

  it('offers nothing in a comment', () => {
    assert.deepEqual(cursorAt(...at('id: x # the i‸\n')), { kind: 'none', reason: 'comment' });
  });

  it('gives the key path under a position for hover', () => {
    const text = 'sandbox:\n  limits:\n    memoryMb: 256\n';
    assert.deepEqual(keyPathAt(text, 2, 6)?.path, ['sandbox', 'limits', 'memoryMb']);
    assert.deepEqual(keyPathAt(text, 2, 15)?.path, ['sandbox', 'limits', 'memoryMb']);
    assert.equal(keyPathAt(text, 2, 1), undefined);
    assert.deepEqual(keyPathAt('files:\n  - path: a\n', 1, 5)?.path, ['files', 0, 'path']);
  });
});

describe('authoring: the cursor inside flow-style collections', () => {
  it('offers the keys of a flow mapping after "{" and ",", minus those already written', () => {
    const c = cursorAt(...at('sandbox:\n  limits: { memoryMb: 128, pi‸ }\n'));
    assert.equal(c.kind, 'key');
    if (c.kind !== 'key') return;
    assert.deepEqual(c.path, ['sandbox', 'limits']);
    assert.equal(c.prefix, 'pi');
    assert.deepEqual(c.existingKeys, ['memoryMb']);
    assert.equal(c.end, c.start + 2, 'the closing brace is not part of the word');
  });

  it('offers values after "key:" inside a flow mapping, and items of a flow sequence by index', () => {
    const v = cursorAt(...at('behavior: { disclosure: on‸'));
    assert.equal(v.kind, 'value');
    if (v.kind === 'value') assert.deepEqual([v.path, v.prefix], [['behavior', 'disclosure'], 'on']);
    const item = cursorAt(...at('population:\n  builtinFamilies: [log-triage, c‸]\n'));
    assert.equal(item.kind, 'value');
    if (item.kind === 'value') assert.deepEqual([item.path, item.prefix], [['population', 'builtinFamilies', 1], 'c']);
    const nested = cursorAt(...at('roles: { agent: { kind: builtin }, user: { ‸'));
    assert.equal(nested.kind, 'key');
    if (nested.kind === 'key') assert.deepEqual(nested.path, ['roles', 'user']);
  });

  it('reads nothing when the flow collection closed before the cursor, or inside quotes', () => {
    assert.equal(cursorAt(...at('band: { low: 0.4 } ‸')).kind, 'none');
    assert.equal(cursorAt(...at('title: { a: "x, b‸')).kind, 'none');
  });
});
