import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
  /** The answer as the roles saw it: content with text tool calls, reasoning, token data (replayed exactly). */
  response?: Pick<ChatResponse, 'message' | 'finishReason' | 'usage' | 'model' | 'tokens'>;
  /**
   * A refusal the roles act on, recorded so a replay takes the same path: the server had no tools API (the agent
   * then describes its tools in the prompt) or the prompt did not fit (the agent learns the window it named).
   */
  refusal?: CachedRefusal;
}

export interface CachedRefusal {
  kind: 'tools_unsupported' | 'context_overflow';
  message: string;
  contextWindow?: number;
}

export interface RequestCache {
  readonly mode: CacheMode;
  readonly dir: string;
  get(key: string): Promise<CacheEntry | undefined>;
  /** The entry recorded for the same call at the same place (see `positionalKey`); used by replay only. */
  getByPosition(positionKey: string): Promise<CacheEntry | undefined>;
  put(entry: CacheEntry, positionKey?: string): Promise<void>;
  /** Facts about a server recorded next to its answers (its context window), so a replay needs no request for them. */
  getMeta(key: string): Promise<{ value: unknown } | undefined>;
  putMeta(key: string, value: unknown): Promise<void>;
}

/**
 * Responses stored as one JSON file per request under `<dir>/<key[0..2]>/<key>.json`: easy to inspect, to commit
 * next to a run, and safe under concurrency (each file is written to a temp name and renamed).
 */
export function createRequestCache(dir: string, mode: CacheMode): RequestCache {
  const pathOf = (key: string): string => join(dir, key.slice(0, 2), `${key}.json`);
  // The positional index maps a position key to the primary key of the entry recorded there.
  const positionPathOf = (key: string): string => join(dir, 'position', key.slice(0, 2), `${key}.json`);
  const metaPathOf = (key: string): string => join(dir, 'meta', key.slice(0, 2), `${key}.json`);
  let tmpSeq = 0;
  const readJson = async <T>(path: string): Promise<T | undefined> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      // A torn or hand-edited file is a miss, not a crash; rw mode rewrites it.
      return undefined;
    }
  };
  const writeAtomically = async (path: string, text: string): Promise<void> => {
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.${tmpSeq++}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
  };
  const get = async (key: string): Promise<CacheEntry | undefined> => {
    if (mode === 'off') return undefined;
    const entry = await readJson<CacheEntry>(pathOf(key));
    return entry?.formatVersion === 1 && entry.key === key ? entry : undefined;
  };
  return {
    mode,
    dir,
    get,
    async getByPosition(positionKey) {
      if (mode === 'off') return undefined;
      const ref = await readJson<{ key: string }>(positionPathOf(positionKey));
      return ref ? get(ref.key) : undefined;
    },
    async put(entry, positionKey) {
      if (mode !== 'rw') return;
      await writeAtomically(pathOf(entry.key), JSON.stringify(entry, null, 1));
      if (positionKey) await writeAtomically(positionPathOf(positionKey), JSON.stringify({ key: entry.key }));
    },
    async getMeta(key) {
      if (mode === 'off') return undefined;
      const entry = await readJson<{ key: string; value: unknown }>(metaPathOf(key));
      return entry?.key === key ? { value: entry.value } : undefined;
    },
    async putMeta(key, value) {
      if (mode !== 'rw') return;
      await writeAtomically(metaPathOf(key), JSON.stringify({ key, value }));
    },
  };
}
