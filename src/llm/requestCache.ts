import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatResponse } from '../core/ports/model.js';
import type { NormalisedRequest } from './requestKey.js';

export type CacheMode = 'off' | 'rw' | 'replay';
export const cacheModes: readonly CacheMode[] = ['off', 'rw', 'replay'];

/** What a cache file holds. The request is kept so a recording can be read and diffed; it never holds a key. */
export interface CacheEntry {
  formatVersion: 1;
  key: string;
  recordedAt: string;
  request: NormalisedRequest;
  response: Pick<ChatResponse, 'message' | 'finishReason' | 'usage' | 'model'>;
}

export interface RequestCache {
  readonly mode: CacheMode;
  readonly dir: string;
  get(key: string): Promise<CacheEntry | undefined>;
  put(entry: CacheEntry): Promise<void>;
}

/**
 * Responses stored as one JSON file per request under `<dir>/<key[0..2]>/<key>.json`: easy to inspect, to commit
 * next to a run, and safe under concurrency (each file is written to a temp name and renamed).
 */
export function createRequestCache(dir: string, mode: CacheMode): RequestCache {
  const pathOf = (key: string): string => join(dir, key.slice(0, 2), `${key}.json`);
  let tmpSeq = 0;
  return {
    mode,
    dir,
    async get(key) {
      if (mode === 'off') return undefined;
      let text: string;
      try {
        text = await readFile(pathOf(key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      try {
        const entry = JSON.parse(text) as CacheEntry;
        return entry.formatVersion === 1 && entry.key === key ? entry : undefined;
      } catch {
        // A torn or hand-edited file is a miss, not a crash; rw mode rewrites it.
        return undefined;
      }
    },
    async put(entry) {
      if (mode !== 'rw') return;
      const path = pathOf(entry.key);
      await mkdir(join(dir, entry.key.slice(0, 2)), { recursive: true });
      const tmp = `${path}.${process.pid}.${tmpSeq++}.tmp`;
      await writeFile(tmp, JSON.stringify(entry, null, 1));
      await rename(tmp, path);
    },
  };
}
