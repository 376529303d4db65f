// Transports of the browser host. `http`: requests go to `coevolve view`'s /api/rpc, notifications come from its
// /api/events stream (server-sent events; the browser resumes it after a disconnect with Last-Event-ID). `static`:
// a bundle written by `coevolve view --bundle`, where each request is answered from small JSON files fetched on
// demand (the rollout table query runs here, with the same code the server runs). Both keep the panel state in the
// URL, so every view is a deep link. The page says which host it is in with <meta name="coevolve-host">.
import type { CommandMethod, DashboardView, RequestMethod, RequestParamsOf, RolloutRow, RolloutTableQuery, RunChoice } from './protocol.js';
import { browserLinks, safeKey, stateFromUrl, urlOfState, type BrowserPage } from './browserLinks.js';
import { datasetList, type RunDataset } from '../viewdata/datasetItems.js';
import { facetsOf, queryRolloutTable } from '../viewdata/rolloutTable.js';
import { requestUrl } from './firstRequest.js';

export interface HostTransport {
  kind: 'vscode' | 'http' | 'static';
  post(message: unknown): void;
  onMessage(deliver: (raw: unknown) => void): void;
  getState(): unknown;
  setState(state: unknown): void;
  /** Whether the host carries out a command, or answers a write request (curation/apply). */
  can(method: CommandMethod | RequestMethod): boolean;
}

/** What a bundle's table.json holds for a run: where its row files are. */
export interface StaticTableIndex {
  runDir: string;
  runName: string;
  generations: { index: number; rows: number }[];
}

/** What a bundle's dataset.json holds: the curated items of each run that the bundle's selection took. */
export interface StaticDataset {
  runs: RunDataset[];
  note: string;
}

const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

interface Envelope {
  kind: string;
  id?: number;
  method?: string;
  params?: unknown;
}

export function browserTransport(): HostTransport {
  const kind = meta('coevolve-host') === 'static' ? 'static' : 'http';
  const page = (meta('coevolve-page') || 'runs') as BrowserPage;
  const allowed = new Set(meta('coevolve-commands').split(/\s+/).filter(Boolean));
  let deliver: (raw: unknown) => void = () => undefined;
  const answer = (id: number, work: () => Promise<unknown>): void => {
    work().then(
      (result) => deliver({ kind: 'response', id, ok: true, result }),
      (err: unknown) => deliver({ kind: 'response', id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  };
  const local = (m: Envelope): boolean => {
    if (m.method === 'rollout/open') {
      const p = m.params as { runDir: string; generation: number; rolloutId: string; step?: number };
      window.location.assign(browserLinks.rollout(p.runDir, p.generation, p.rolloutId, p.step));
      return true;
    }
    return m.method === 'state/changed';
  };
  const answerStatic = staticAnswerer();
  // The requests the server preloaded for this page (firstRequest.ts): each is fetched once with its GET URL, which
  // the browser answers from the preload; any other request (or a second identical one) is a POST.
  const preloaded = new Set([...document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][data-coevolve-request]')].map((l) => l.getAttribute('href')));
  const rpc = (m: Envelope): Promise<unknown> => {
    const url = requestUrl(m.method ?? '', m.params);
    return preloaded.delete(url) ? getRpc(url) : postRpc(m);
  };
  return {
    kind,
    post: (raw) => {
      const m = raw as Envelope;
      if (m.kind === 'ready') {
        if (kind === 'http') openEvents(deliver);
        return;
      }
      if (m.kind === 'command') {
        if (local(m) || kind === 'static') return;
        void postRpc(m); // the server refuses what it does not allow; nothing is answered
        return;
      }
      if (m.kind !== 'request' || typeof m.id !== 'number') return;
      answer(m.id, () => (kind === 'http' ? rpc(m).then(unwrap) : answerStatic(m.method ?? '', m.params)));
    },
    onMessage: (d) => {
      deliver = d;
    },
    getState: () => stateFromUrl(page, window.location.search),
    setState: (state) => {
      if (state && typeof state === 'object') window.history.replaceState(null, '', urlOfState(page, state as Record<string, unknown>));
    },
    can: (method) => method === 'rollout/open' || method === 'state/changed' || (kind === 'http' && allowed.has(method)),
  };
}

async function postRpc(m: Envelope): Promise<unknown> {
  const res = await fetch('api/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(m), credentials: 'same-origin' });
  const text = await res.text();
  if (!res.ok && !text.startsWith('{')) throw new Error(`coevolve view answered ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/** A preloaded read request: the same fetch mode and credentials as the `<link rel="preload" crossorigin>`. */
async function getRpc(url: string): Promise<unknown> {
  const res = await fetch(url, { credentials: 'same-origin' });
  const text = await res.text();
  if (!res.ok && !text.startsWith('{')) throw new Error(`coevolve view answered ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

function unwrap(reply: unknown): unknown {
  const r = reply as { ok?: boolean; result?: unknown; error?: string };
  if (r.ok) return r.result;
  throw new Error(r.error ?? 'request failed');
}

/** The live stream: each event's data is a host notification envelope. EventSource reconnects by itself. */
function openEvents(deliver: (raw: unknown) => void): void {
  const source = new EventSource('api/events');
  source.onmessage = (e: MessageEvent<string>) => {
    try {
      deliver(JSON.parse(e.data) as unknown);
    } catch {
      // not a JSON envelope: ignored
    }
  };
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`${path}: ${res.status === 404 ? 'not in this bundle' : `HTTP ${res.status}`}`);
  return (await res.json()) as T;
}

const key = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || !safeKey.test(v)) throw new Error(`not a valid ${what}: ${String(v).slice(0, 80)}`);
  return v;
};
const gen = (v: unknown): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error('not a valid generation');
  return v;
};

/** Answers requests from a bundle's files (data/...), loading row files per generation only when a query needs them. */
function staticAnswerer(): (method: string, params: unknown) => Promise<unknown> {
  const rowCache = new Map<string, Promise<RolloutRow[]>>();
  const rowsOf = (run: string, g: number): Promise<RolloutRow[]> => {
    const k = `${run}/${g}`;
    let p = rowCache.get(k);
    if (!p) rowCache.set(k, (p = getJson<RolloutRow[]>(`data/${run}/rows/g${g}.json`)));
    return p;
  };
  let runsFile: Promise<RunChoice[]> | undefined;
  const runs = (): Promise<RunChoice[]> => (runsFile ??= getJson<RunChoice[]>('data/runs.json'));
  return async (method, raw) => {
    const params = (raw ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'runs/list':
        return runs();
      case 'runs/names':
        return (await runs()).map(({ runDir, label, description, name, runId, startedAt, status }) => ({ runDir, label, description, name, runId, startedAt, status }));
      case 'runs/page': {
        const p = params as RequestParamsOf<'runs/page'>;
        const all = await runs();
        return { total: all.length, offset: p.offset, runs: all.slice(p.offset, p.offset + p.limit) };
      }
      case 'dashboard/get': {
        const view = await getJson<DashboardView>(`data/${key(params['runDir'], 'run')}/dashboard.json`);
        const other = params['compareRunDir'];
        if (other) view.compare = (await getJson<DashboardView>(`data/${key(other, 'run')}/dashboard.json`)).run;
        return view;
      }
      case 'rollout/get':
        return getJson(`data/${key(params['runDir'], 'run')}/rollouts/g${gen(params['generation'])}/${key(params['rolloutId'], 'rollout id')}.json`);
      case 'rollouts/table': {
        const q = params as unknown as RolloutTableQuery;
        const run = key(q.runDir, 'run');
        const index = await getJson<StaticTableIndex>(`data/${run}/table.json`);
        const wanted = index.generations.filter((g) => g.rows > 0 && (!q.filter?.generations?.length || q.filter.generations.includes(g.index)));
        const all = (await Promise.all(index.generations.filter((g) => g.rows > 0).map((g) => (wanted.includes(g) ? rowsOf(run, g.index) : Promise.resolve([]))))).flat();
        return { runDir: run, runName: index.runName, ...queryRolloutTable(all, q), facets: facetsOf(all), running: 0 };
      }
      case 'eval/get':
        return getJson(`data/${key(params['runDir'], 'run')}/eval.json`);
      case 'dataset/list': {
        const p = params as RequestParamsOf<'dataset/list'>;
        const d = await getJson<StaticDataset>('data/dataset.json');
        const runs = p.runDir === undefined ? d.runs : d.runs.filter((r) => r.runDir === key(p.runDir, 'run'));
        return { ...datasetList(runs, p), bundleNote: d.note };
      }
      case 'rollouts/search':
        throw new Error('Full-text search needs `coevolve view` (a static bundle has no search index); the table filters work here.');
      default:
        throw new Error(`a static bundle does not answer ${method}`);
    }
  };
}
