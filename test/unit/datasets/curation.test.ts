import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendCuration, curationFile, readCuration, type CurationEntry } from '../../../src/store/curation.js';

const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const rollout = (id: string) => ({ kind: 'rollout' as const, id });

describe('curation log', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'coevolve-curation-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a run without curation as empty', () => {
    const c = readCuration(dir);
    assert.equal(c.entries.length, 0);
    assert.equal(c.states.size, 0);
  });

  it('folds accept / reject / clear, labels and comments per target, last decision wins', async () => {
    const entries: CurationEntry[] = [
      { at: at(1), target: rollout('r1'), action: 'accept' },
      { at: at(2), target: rollout('r1'), action: 'label', label: 'good-clarification' },
      { at: at(3), target: rollout('r1'), action: 'label', label: 'good-clarification' },
      { at: at(4), target: rollout('r1'), action: 'label', label: 'long' },
      { at: at(5), target: rollout('r1'), action: 'unlabel', label: 'long' },
      { at: at(6), target: rollout('r1'), action: 'comment', text: 'asks before acting', author: 'ana' },
      { at: at(7), target: rollout('r2'), action: 'reject', text: 'verifier flaky' },
      { at: at(8), target: { kind: 'environment', id: 'env-1' }, action: 'accept' },
      { at: at(9), target: { kind: 'environment', id: 'env-1' }, action: 'clear' },
    ];
    await appendCuration(dir, entries.slice(0, 4));
    await appendCuration(dir, entries.slice(4));
    const c = readCuration(dir);
    assert.equal(c.entries.length, entries.length);
    const r1 = c.states.get('rollout:r1')!;
    assert.equal(r1.verdict, 'accepted');
    assert.deepEqual(r1.labels, ['good-clarification']);
    assert.deepEqual(r1.comments, [{ at: at(6), text: 'asks before acting', author: 'ana' }]);
    assert.equal(r1.updatedAt, at(6));
    const r2 = c.states.get('rollout:r2')!;
    assert.equal(r2.verdict, 'rejected');
    assert.equal(r2.verdictNote, 'verifier flaky');
    assert.equal(c.states.get('environment:env-1')!.verdict, undefined);
  });

  it('tolerates a truncated last line and repairs it before the next append', async () => {
    await appendCuration(dir, [{ at: at(1), target: rollout('r1'), action: 'accept' }]);
    appendFileSync(curationFile(dir), '{"at":"2026-01-01T00:00:02.000Z","target":{"kind":"rol');
    const torn = readCuration(dir);
    assert.equal(torn.entries.length, 1);
    assert.ok(torn.tornTailBytes > 0);
    await appendCuration(dir, [{ at: at(3), target: rollout('r1'), action: 'reject' }]);
    const text = readFileSync(curationFile(dir), 'utf8');
    assert.equal(text.split('\n').filter(Boolean).length, 2);
    const after = readCuration(dir);
    assert.equal(after.tornTailBytes, 0);
    assert.equal(after.states.get('rollout:r1')!.verdict, 'rejected');
  });

  it('reports and skips lines that are not valid entries', async () => {
    appendFileSync(curationFile(dir), `not json\n${JSON.stringify({ at: at(1), target: rollout('r1'), action: 'promote' })}\n`);
    await appendCuration(dir, [{ at: at(2), target: rollout('r1'), action: 'accept' }]);
    const c = readCuration(dir);
    assert.equal(c.entries.length, 1);
    assert.deepEqual(c.badLines.map((b) => b.line), [1, 2]);
    assert.match(c.badLines[1]!.error, /action/);
  });

  it('refuses to write an invalid entry', async () => {
    await assert.rejects(appendCuration(dir, [{ at: at(1), target: rollout('r1'), action: 'label' }]), /label needs a non-empty "label"/);
  });
});
