import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeUtf8Strict, FileReadError, readFileBounded, readFileBoundedAsync } from '../../../src/files/boundedRead.js';

describe('bounded file reads', () => {
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'coevolve-bounded-')); });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const refusal = (fn: () => unknown, code: FileReadError['code'], reason: RegExp): void => {
    assert.throws(fn, (err: unknown) => err instanceof FileReadError && err.code === code && reason.test(err.message));
  };

  it('reads a regular file whole, at the cap and empty', async () => {
    writeFileSync(join(tmp, 'a'), 'hello');
    writeFileSync(join(tmp, 'e'), '');
    assert.equal(readFileBounded(join(tmp, 'a'), { maxBytes: 5 }).toString(), 'hello');
    assert.equal((await readFileBoundedAsync(join(tmp, 'a'), { maxBytes: 5 })).toString(), 'hello');
    assert.equal(readFileBounded(join(tmp, 'e'), { maxBytes: 5 }).length, 0);
  });

  it('refuses a file over the cap by its size, naming the file and both sizes', async () => {
    const big = join(tmp, 'big');
    writeFileSync(big, '');
    truncateSync(big, 3 * 1024 ** 3);
    refusal(() => readFileBounded(big, { maxBytes: 1024 }), 'too-large', /big: is 3 GiB, larger than the 1 KiB this reader accepts/);
    await assert.rejects(readFileBoundedAsync(big, { maxBytes: 1024 }), (e: unknown) => e instanceof FileReadError && e.size === 3 * 1024 ** 3);
  });

  it('refuses devices and FIFOs without reading or blocking', async () => {
    symlinkSync('/dev/zero', join(tmp, 'zero'));
    spawnSync('mkfifo', [join(tmp, 'fifo')]);
    refusal(() => readFileBounded(join(tmp, 'zero'), { maxBytes: 1 << 20 }), 'not-regular', /zero: is not a regular file \(a character device\)/);
    refusal(() => readFileBounded(join(tmp, 'fifo'), { maxBytes: 1 << 20 }), 'not-regular', /fifo: is not a regular file \(a FIFO\)/);
    await assert.rejects(readFileBoundedAsync(join(tmp, 'fifo'), { maxBytes: 1 << 20 }), /not a regular file \(a FIFO\)/);
    refusal(() => readFileBounded(tmp, { maxBytes: 1 << 20 }), 'not-regular', /a folder/);
  });

  it('with noFollow refuses a link even to a regular file', () => {
    writeFileSync(join(tmp, 'real'), 'x');
    symlinkSync(join(tmp, 'real'), join(tmp, 'link'));
    refusal(() => readFileBounded(join(tmp, 'link'), { maxBytes: 10, noFollow: true }), 'link', /link: is a symbolic link/);
    assert.equal(readFileBounded(join(tmp, 'link'), { maxBytes: 10 }).toString(), 'x');
  });

  it('strict UTF-8 names the file and the offset of the first bad byte', () => {
    assert.equal(decodeUtf8Strict('f', Buffer.from('héllo')), 'héllo');
    const bad = Buffer.concat([Buffer.from('abc é '), Buffer.from([0xff, 0x41])]);
    assert.throws(() => decodeUtf8Strict('dir/instruction.md', bad), /dir\/instruction\.md: is not valid UTF-8 text \(first bad byte at offset 7\)/);
    assert.throws(() => decodeUtf8Strict('f', Buffer.from([0x41, 0xe2, 0x82])), /offset 1/);
  });
});
