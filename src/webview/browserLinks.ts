// Deep links of the browser host (`coevolve view` and a static bundle share them). Relative URLs, so a bundle
// works under any path a static server gives it. Runs are named by the short key the host made (never a path).

export type BrowserPage = 'runs' | 'run' | 'dashboard' | 'rollout';

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
};

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
    case 'run':
      return browserLinks.run(run, n('generation'));
    case 'dashboard':
      return withTab(browserLinks.dashboard(run, s('compareRunDir')));
    case 'rollout':
      return withTab(browserLinks.rollout(run, n('generation') ?? 0, s('rolloutId') ?? '', n('step')));
  }
}
