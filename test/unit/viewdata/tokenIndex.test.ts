import * as assert from 'node:assert/strict';
import { TokenIndex } from '../../../src/viewdata/tokenIndex.js';

// The index may only narrow a substring search: every document containing the query must be a candidate.
const texts = [
  '$ bash check.sh\nexit 0', 'cat /var/log/app.log | grep error', 'onerror=alert(1) <img src=x>', 'résumé naïve über', 'exit_code=137 killed',
  'the quick brown fox', 'checks passed', 'foo.sh bar', '', '---- ====', 'errors: none', 'x'.repeat(300),
];
const queries = [
  'check.sh', 'heck.s', 'exit', 'xit', ' grep ', 'bash check', 'error', 'rror', 'onerror=alert', 'err', 'log | grep', '/var/', 'résumé', 'sumé naï', 'über', 'exit_code', '137 kil',
  'quick brown', 'ick bro', 'passed', 'sh', '.sh', '----', '= =', ' ', 'xxxx', 'zz', 'no such text', 'e',
];

describe('token index: candidates of a substring query', () => {
  const index = new TokenIndex();
  texts.forEach((t, d) => index.add(d, t));

  it('never leaves out a document that contains the query, and narrows whole-word queries', () => {
    for (const q of queries) {
      const c = index.candidates(q, texts.length);
      texts.forEach((t, d) => {
        if (t.includes(q)) assert.ok(!c || c[d] === 1, `"${q}" is in document ${d} (${JSON.stringify(t)}) but not a candidate`);
      });
    }
    const docs = (q: string): number[] => [...index.candidates(q, texts.length)!].flatMap((m, d) => (m ? [d] : []));
    assert.deepEqual(docs('bash check'), [0], '"checks passed" has no word ending in "bash"');
    assert.deepEqual(docs(' grep '), [1], 'a word between separators is looked up whole');
    assert.deepEqual(docs('exit'), [0, 4], 'one word may sit inside a longer one (exit_code)');
    assert.deepEqual([...index.candidates('no such text', texts.length)!].filter(Boolean), []);
    assert.equal(index.candidates('----', texts.length), null, 'a query of separators only can be anywhere');
  });

  it('ignores documents past the count asked for (added after the query started)', () => {
    const c = index.candidates('exit', 0)!;
    assert.equal(c.length, 0);
  });
});
