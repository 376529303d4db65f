import { extract } from 'tar-stream';
import { Readable } from 'node:stream';
import type { CollectedLogs } from '../../core/ports/sandbox.js';

/** What the rollout record keeps of /logs/agent and /logs/artifacts: bounded, so a flood cannot bloat the run. */
export const collectedLogCaps = { files: 200, fileBytes: 256 * 1024, totalBytes: 2 * 1024 * 1024, listedDrops: 50 } as const;

/**
 * Parses, as data, a tar of /logs/agent and /logs/artifacts made inside the sandbox (`tar -c`, links archived as
 * links, never followed). Keeps regular files under `agent/` and `artifacts/` with safe names; links, special
 * files, names with `..` and anything past the caps are dropped and listed. Text is kept as UTF-8, anything that
 * is not valid UTF-8 as base64.
 */
export async function parseCollectedLogs(tar: Buffer): Promise<CollectedLogs> {
  const out: CollectedLogs = { files: [], dropped: [] };
  let total = 0;
  const drop = (path: string, reason: string): void => {
    if (out.dropped.length < collectedLogCaps.listedDrops) out.dropped.push({ path, reason });
  };
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, body, next) => {
      const path = header.name.replace(/^\.\//, '').replace(/\/+$/, '');
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (data) => {
        const c = data as Buffer;
        size += c.length;
        if (size <= collectedLogCaps.fileBytes) chunks.push(c);
      });
      body.on('end', () => {
        next();
        if (header.type === 'directory' || path === '' || path === 'agent' || path === 'artifacts') return;
        if (!/^(agent|artifacts)\//.test(path) || path.split('/').some((p) => p === '..' || p === '')) return drop(path, 'name outside /logs/agent and /logs/artifacts');
        if (header.type !== 'file') return drop(path, `${header.type ?? 'special'} entry (only regular files are collected)`);
        if (out.files.length >= collectedLogCaps.files) return drop(path, `more than ${collectedLogCaps.files} files`);
        if (size > collectedLogCaps.fileBytes) return drop(path, `larger than ${collectedLogCaps.fileBytes} bytes`);
        if (total + size > collectedLogCaps.totalBytes) return drop(path, `past ${collectedLogCaps.totalBytes} bytes in all`);
        total += size;
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        const isText = Buffer.from(text, 'utf8').equals(bytes);
        out.files.push({ path, bytes: size, encoding: isText ? 'utf8' : 'base64', content: isText ? text : bytes.toString('base64') });
      });
      body.on('error', reject);
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  Readable.from([tar]).pipe(ex);
  await done;
  return out;
}
