// Deep links of the browser host (`coevolve view` and a static bundle share them). Relative URLs, so a bundle
// works under any path a static server gives it. Runs are named by the short key the host made (never a path).
import type { DatasetFilterParams } from './protocol.js';

export type BrowserPage = 'runs' | 'run' | 'dashboard' | 'rollout' | 'dataset';

const q = (params: Record<string, string | number | undefined>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
};

export const browserLinks = {
  runs: (): string => 'index.html',
  run: (run: string, generation?: number): string => `run.html${q({ run, g: generation })}`,
  dashboard: (run: string, compare?: string): string => `dashboard.html${q({ run, compare })}`,
  rollout: (run: string, generation: number, rolloutId: string, step?: number): string => `rollout.html${q({ run, g: generation, r: rolloutId, step })}`,
  /** The dataset page, of every run or of one, with the filters in the URL (a shared link shows the same items). */
  dataset: (run?: string, f: DatasetFilterParams = {}): string => dataset(run, f),
};

function dataset(run: string | undefined, f: DatasetFilterParams): string {
  const s = new URLSearchParams();
  if (run) s.set('run', run);
  if (f.verdict && f.verdict !== 'any') s.set('verdict', f.verdict);
  if (f.inBand) s.set('band', '1');
  if (f.minReward !== undefined) s.set('min', String(f.minReward));
  for (const t of f.tags ?? []) s.append('tag', t);
  for (const x of f.families ?? []) s.append('family', x);
  for (const g of f.generations ?? []) s.append('g', String(g));
  const text = s.toString();
  return `dataset.html${text ? `?${text}` : ''}`;
}

/** The dataset page's state from its URL: values that do not parse are dropped, never passed on. */
function datasetState(p: URLSearchParams): Record<string, unknown> {
  const f: DatasetFilterParams = {};
  const verdict = p.get('verdict');
  if (verdict === 'accepted' || verdict === 'rejected') f.verdict = verdict;
  if (p.get('band') === '1') f.inBand = true;
  const min = p.get('min');
  if (min !== null && /^-?\d{1,6}(\.\d{1,6})?$/.test(min)) f.minReward = Number(min);
  const text = (k: string): string[] => p.getAll(k).filter((v) => v.length > 0 && v.length <= 256).slice(0, 100);
  if (text('tag').length) f.tags = text('tag');
  if (text('family').length) f.families = text('family');
  const gens = p.getAll('g').filter((g) => /^\d{1,9}$/.test(g)).map(Number).slice(0, 100);
  if (gens.length) f.generations = gens;
  const run = p.get('run') ?? '';
  return { ...(safeKey.test(run) ? { runDir: run } : {}), filters: f };
}

/** Keys and ids that may name a file of a bundle or a run of a server: letters, digits, dot, dash, underscore. */
export const safeKey = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,256}$/;

/** The panel state a page starts from, read from its URL; undefined when the URL does not name a valid target. */
export function stateFromUrl(page: BrowserPage, search: string): Record<string, unknown> | undefined {
  const p = new URLSearchParams(search);
  const run = p.get('run') ?? '';
  const int = (k: string): number | undefined => {
    const v = p.get(k);
    return v !== null && /^\d{1,9}$/.test(v) ? Number(v) : undefined;
  };
  const tab = p.get('tab');
  const tabPart = tab && /^[a-z]{1,32}$/.test(tab) ? { tab } : {};
  if (page === 'runs') return {};
  if (page === 'dataset') return datasetState(p);
  if (!safeKey.test(run)) return undefined;
  if (page === 'run') {
    const g = int('g');
    return { runDir: run, ...(g !== undefined ? { generation: g } : {}) };
  }
  if (page === 'dashboard') {
    const compare = p.get('compare');
    return { runDir: run, ...(compare && safeKey.test(compare) ? { compareRunDir: compare } : {}), ...tabPart };
  }
  const g = int('g');
  const r = p.get('r') ?? '';
  const step = int('step');
  if (g === undefined || !safeKey.test(r)) return undefined;
  return { runDir: run, generation: g, rolloutId: r, ...(step !== undefined ? { step } : {}), ...tabPart };
}

/** The URL of a page's state (kept in the address bar, so a reload or a shared link shows the same thing). */
export function urlOfState(page: BrowserPage, state: Record<string, unknown>): string {
  const s = (k: string): string | undefined => (typeof state[k] === 'string' ? (state[k] as string) : undefined);
  const n = (k: string): number | undefined => (typeof state[k] === 'number' ? (state[k] as number) : undefined);
  const run = s('runDir') ?? '';
  const tab = s('tab');
  const withTab = (url: string): string => (tab && tab !== 'transcript' ? `${url}${url.includes('?') ? '&' : '?'}tab=${encodeURIComponent(tab)}` : url);
  switch (page) {
    case 'runs':
      return browserLinks.runs();
    case 'dataset':
      return browserLinks.dataset(s('runDir'), (state['filters'] ?? {}) as DatasetFilterParams);
    case 'run':
      return browserLinks.run(run, n('generation'));
    case 'dashboard':
      return withTab(browserLinks.dashboard(run, s('compareRunDir')));
    case 'rollout':
      return withTab(browserLinks.rollout(run, n('generation') ?? 0, s('rolloutId') ?? '', n('step')));
  }
}
