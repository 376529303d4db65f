import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import type { Header } from 'tar-stream';
import { sanitiseWorkspaceTar } from '../../../src/sandbox/transfer/sanitiseWorkspace.js';

type Entry = Partial<Header> & { name: string; body?: string };

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const p = pack();
  for (const { body, ...h } of entries) {
    const header = { type: 'file', mode: 0o644, ...h } as Header;
    if (header.type === 'file') p.entry(header, body ?? '');
    else p.entry(header);
  }
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function listing(tar: Uint8Array): Promise<{ name: string; type: string; mode: number; uid: number; linkname?: string; body: string }[]> {
  const ex = extract();
  Readable.from([Buffer.from(tar)]).pipe(ex as unknown as NodeJS.WritableStream);
  const out = [];
  for await (const e of ex as unknown as AsyncIterable<NodeJS.ReadableStream & { header: Header }>) {
    let body = '';
    for await (const c of e as AsyncIterable<Buffer>) body += c.toString();
    out.push({ name: e.header.name, type: e.header.type ?? '', mode: e.header.mode ?? 0, uid: e.header.uid ?? -1, ...(e.header.linkname ? { linkname: e.header.linkname } : {}), body });
  }
  return out;
}

const opts = { workdir: '/workspace', maxBytes: 1 << 20 };
const dir = (name: string, mode = 0o755): Entry => ({ name, type: 'directory', mode });
const link = (name: string, linkname: string): Entry => ({ name, type: 'symlink', linkname });

describe('sanitising transfer of a workspace', () => {
  it('keeps folders, files and links that resolve inside; owner becomes the agent user, special bits go', async () => {
    const { tar, report } = await sanitiseWorkspaceTar(await tarOf([
      dir('./'), dir('./out', 0o555), { name: './out/r.csv', body: 'a,1\n', mode: 0o4755, uid: 0 },
      link('./out/alias', 'r.csv'), link('./abs', '/workspace/out/r.csv'), link('./top', '.'),
    ]), opts);
    const got = await listing(tar);
    assert.deepEqual(got.map((e) => [e.name, e.type]), [['out', 'directory'], ['out/r.csv', 'file'], ['out/alias', 'symlink'], ['abs', 'symlink'], ['top', 'symlink']]);
    assert.equal(got[0]!.mode, 0o755, 'folders keep their bits plus owner rwx');
    assert.equal(got[1]!.mode, 0o755, 'setuid dropped');
    assert.ok(got.every((e) => e.uid === 65534));
    assert.equal(got[1]!.body, 'a,1\n');
    assert.equal(report.droppedCount, 0);
    assert.equal(report.bytes, 4);
  });

  it('drops links that leave the workspace, however they are spelled', async () => {
    const { tar, report } = await sanitiseWorkspaceTar(await tarOf([
      dir('./'), dir('./sub'), dir('./sub/deep'),
      link('./etc', '/etc/passwd'), link('./tests', '/tests/report.expected'), link('./up', '../tests'),
      link('./sneaky', '/workspace/../tests/x'), link('./proc', '/proc/self/root/tests'),
      link('./sub/deep/home', '../..'), // the workspace root: inside
      link('./down', 'sub/deep/home/..'), // looks like sub/deep, really the folder above the workspace
      link('./chain', 'etc'), // through a link that is dropped
      link('./loop1', 'loop2'), link('./loop2', 'loop1'),
      link('./nowhere', 'missing/file'),
    ]), opts);
    const names = (await listing(tar)).map((e) => e.name);
    assert.deepEqual(names, ['sub', 'sub/deep', 'sub/deep/home']);
    const why = Object.fromEntries(report.dropped.map((d) => [d.path, d.reason]));
    for (const p of ['etc', 'tests', 'up', 'sneaky', 'proc', 'down']) assert.match(why[p] ?? '', /leaves the workspace/, p);
    for (const p of ['chain', 'loop1', 'loop2', 'nowhere']) assert.match(why[p] ?? '', /does not resolve/, p);
  });

  it('drops special files, entries under a link or a file, bad names, duplicates and bytes past the limit', async () => {
    const { tar, report } = await sanitiseWorkspaceTar(await tarOf([
      dir('./'), dir('./d'), { name: './fifo', type: 'fifo' }, { name: './dev', type: 'character-device', devmajor: 1, devminor: 3 },
      link('./l', 'd'), { name: './l/x', body: 'through the link' }, { name: './f', body: 'x' }, { name: './f/y', body: 'under a file' },
      { name: '../escape', body: 'x' }, { name: '/abs', body: 'x' }, { name: './d/../../x', body: 'x' },
      { name: './d/a', body: 'first' }, { name: './d/a', body: 'second' },
      { name: './big', body: 'x'.repeat(2000) },
      { name: './hard', type: 'link', linkname: './d/a' }, { name: './hard-out', type: 'link', linkname: '/etc/shadow' },
    ]), { ...opts, maxBytes: 1000 });
    const got = await listing(tar);
    assert.deepEqual(got.map((e) => e.name), ['d', 'f', 'd/a', 'hard', 'l']);
    assert.equal(got.find((e) => e.name === 'd/a')!.body, 'first');
    const why = Object.fromEntries(report.dropped.map((d) => [d.path, d.reason]));
    assert.match(why.fifo ?? '', /fifo entries are not copied/);
    assert.match(why.dev ?? '', /character-device/);
    assert.match(why['l/x'] ?? '', /under something that is not a folder/);
    assert.match(why['f/y'] ?? '', /under something that is not a folder/);
    assert.match(why.big ?? '', /past the workspace limit/);
    assert.match(why['d/a'] ?? '', /duplicate/);
    assert.match(why['hard-out'] ?? '', /hard link/);
    assert.equal(report.dropped.filter((d) => /not a plain relative path/.test(d.reason)).length, 3);
  });

  it('writes folders first and links last, so extraction never goes through a link', async () => {
    const { tar } = await sanitiseWorkspaceTar(await tarOf([dir('./'), link('./a', 'b'), dir('./b'), { name: './b/f', body: '1' }]), opts);
    assert.deepEqual((await listing(tar)).map((e) => e.type), ['directory', 'file', 'symlink']);
  });
});
