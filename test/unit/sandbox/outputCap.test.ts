import assert from 'node:assert/strict';
import { CappedOutput } from '../../../src/sandbox/outputCap.js';

describe('CappedOutput', () => {
  it('keeps everything under the cap', () => {
    const o = new CappedOutput(10);
    o.push(Buffer.from('abc'));
    o.push(Buffer.from('def'));
    assert.equal(o.text(), 'abcdef');
    assert.equal(o.truncated, false);
  });
  it('keeps the head and the tail and marks the cut', () => {
    const o = new CappedOutput(10);
    for (const c of ['01234', '56789', 'abcde', 'fghij']) o.push(Buffer.from(c));
    assert.equal(o.truncated, true);
    assert.equal(o.total, 20);
    assert.match(o.text(), /^01234\n\[coevolve: 10 bytes of output cut; 20 bytes in total\]\nfghij$/);
  });
  it('handles one chunk larger than the cap', () => {
    const o = new CappedOutput(4);
    o.push(Buffer.from('0123456789'));
    assert.match(o.text(), /^01\n.*\n89$/);
  });
});
