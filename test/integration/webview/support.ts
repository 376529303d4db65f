// Panels in real Chromium outside the workbench: the real bundles, served by the same webviewHtml() (same CSP) as
// the extension, answering requests with the extension's own data functions over a real run directory.
import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness, type Harness } from '../../support/webviewHarness.js';

export const chromiumPath = process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumProblem(): string | undefined {
  if (!existsSync(chromiumPath)) return `Chromium not found at ${chromiumPath}`;
  if (!existsSync(join('dist/webview/rolloutViewer.js'))) return 'dist/webview is not built (npm run build)';
  return undefined;
}

export interface OpenedPanel {
  page: Page;
  harness: Harness;
  close(): Promise<void>;
}

export async function openPanel(browser: Browser, app: string, element: string, state: unknown, answer: (method: string, params: unknown) => unknown, theme: 'vscode-light' | 'vscode-dark' = 'vscode-dark'): Promise<OpenedPanel> {
  const harness = await startHarness(process.cwd(), app, element, state, answer, theme);
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  await page.goto(harness.url);
  return { page, harness, close: async () => { await page.close(); await harness.close(); } };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu'] });
}

/** Every `.vbar` in the page: its value and scale (data attributes) against the fill's rendered box. */
export async function barGeometry(page: Page): Promise<{ label: string; value: number; expectedWidth: number; width: number; expectedLeft: number; left: number }[]> {
  return page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.vbar')].map((bar) => {
    const fill = bar.querySelector<HTMLElement>('.vbar-fill');
    const track = bar.getBoundingClientRect();
    const box = fill?.getBoundingClientRect();
    const value = Number(bar.dataset['value']);
    const lo = Number(bar.dataset['lo']);
    const hi = Number(bar.dataset['hi']);
    return {
      label: bar.getAttribute('aria-label') ?? '',
      value,
      expectedWidth: (Math.abs(value) / (hi - lo)) * track.width,
      width: box?.width ?? -1,
      expectedLeft: ((Math.min(0, value) - lo) / (hi - lo)) * track.width,
      left: (box?.left ?? 0) - track.left,
    };
  }));
}

export async function cspViolations(page: Page): Promise<unknown[]> {
  return page.evaluate(() => (window as unknown as { __coevolveCspViolations?: unknown[] }).__coevolveCspViolations ?? ['the CSP watcher did not load']);
}
