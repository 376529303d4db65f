// What the browser actually drew, read from a webview frame (or a page): the bars' rendered geometry against the
// values they carry, and the Content-Security-Policy violations the document recorded. Assertions on these catch
// what a unit test of the render function cannot: a style the CSP dropped, a stylesheet that overrides a width.
import type { Frame, Page } from 'playwright-core';

/** The webview frame whose document has `selector` (code-server serves webview frames from the same origin). */
export async function webviewFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (await frame.locator(selector).count().catch(() => 0)) return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no webview frame shows ${selector} within ${timeoutMs / 1000} s`);
}

export interface DrawnBars {
  /** Bars on screen (a track wider than 0 px) that were checked. */
  checked: number;
  /** Values of the checked bars, to say which range the check covered (a negative one, one above 1…). */
  values: number[];
  /** One sentence per bar whose drawn fill is not where its value puts it (more than 1.5 px off). */
  mismatches: string[];
}

/**
 * Every visible `.vbar` (render/valueBar.ts) under `root`: the fill must start at (min(0, v) − lo) / (hi − lo) of
 * the track and be |v| / (hi − lo) of it wide, measured with getBoundingClientRect, so a fill the CSP left at its
 * stylesheet default (width 0, or 100 % as lit's styleMap once drew it) is a mismatch.
 */
export async function drawnBars(frame: Frame | Page, root = 'body'): Promise<DrawnBars> {
  return frame.evaluate((rootSelector) => {
    const out = { checked: 0, values: [] as number[], mismatches: [] as string[] };
    for (const bar of document.querySelectorAll<HTMLElement>(`${rootSelector} .vbar`)) {
      const track = bar.getBoundingClientRect();
      if (track.width === 0) continue;
      const fill = bar.querySelector<HTMLElement>('.vbar-fill')?.getBoundingClientRect();
      const v = Number(bar.dataset.value), lo = Number(bar.dataset.lo), hi = Number(bar.dataset.hi);
      const span = hi - lo || 1;
      const left = ((Math.min(0, v) - lo) / span) * track.width;
      const width = (Math.abs(v) / span) * track.width;
      out.checked++;
      out.values.push(v);
      const label = bar.getAttribute('aria-label') ?? '?';
      if (!fill) out.mismatches.push(`${label}: no fill drawn`);
      else if (Math.abs(fill.left - track.left - left) > 1.5 || Math.abs(fill.width - width) > 1.5) {
        out.mismatches.push(`${label} on [${lo}, ${hi}]: fill at ${(fill.left - track.left).toFixed(1)} px, ${fill.width.toFixed(1)} px wide; expected ${left.toFixed(1)} px, ${width.toFixed(1)} px of ${track.width.toFixed(1)} px`);
      }
    }
    return out;
  }, root);
}

/** securitypolicyviolation events the document recorded since it loaded (render/cspWatch.ts), or null if it has no watch. */
export async function cspViolations(frame: Frame): Promise<unknown[] | null> {
  return frame.evaluate(() => (window as unknown as { __coevolveCspViolations?: unknown[] }).__coevolveCspViolations ?? null);
}

export interface DrawnLegend {
  chart: string;
  /** The legend's text as drawn (labels and the values it shows without a pointer). */
  text: string;
  /** Pixels from the legend's bottom edge to the plot's top edge: >= 0 when the key is above its plot. */
  gapAbovePlot: number;
}

/** Each dashboard chart's legend (uPlot's `.u-legend`) against its plot area (`.u-over`), as laid out on screen. */
export async function drawnLegends(frame: Frame | Page): Promise<DrawnLegend[]> {
  return frame.evaluate(() => [...document.querySelectorAll<HTMLElement>('figure.chart')].flatMap((fig) => {
    const legend = fig.querySelector('.u-legend');
    const over = fig.querySelector('.u-over');
    if (!legend || !over) return [];
    return [{ chart: fig.dataset.chart ?? '?', text: (legend.textContent ?? '').replace(/\s+/g, ' ').trim(), gapAbovePlot: over.getBoundingClientRect().top - legend.getBoundingClientRect().bottom }];
  }));
}

/**
 * Elements of the page with a mouse listener (click, dblclick, mousedown, pointerdown) that a keyboard user cannot
 * reach: not focusable themselves, holding no focusable element (a delegating container) and inside none (a row that
 * takes Enter for its double-click). Read through the DevTools protocol, which lists the listeners each element
 * really has (lit's @click, uPlot's own). uPlot's plot overlay is left out: its pointer readout is what the legend
 * shows without a pointer. Only elements on screen now are checked; call it once per tab.
 */
export async function mouseOnlyControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { result } = await cdp.send('Runtime.evaluate', { expression: `[...document.querySelectorAll('body *')].filter((e) => e.checkVisibility() && !e.closest('.u-over, .u-under'))` });
    const { result: items } = await cdp.send('Runtime.getProperties', { objectId: result.objectId!, ownProperties: true });
    const out: string[] = [];
    for (const item of items) {
      const objectId = item.value?.objectId;
      if (!/^\d+$/.test(item.name) || !objectId) continue;
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId });
      if (!listeners.some((l) => ['click', 'dblclick', 'mousedown', 'pointerdown'].includes(l.type))) continue;
      const { result: verdict } = await cdp.send('Runtime.callFunctionOn', {
        objectId,
        returnByValue: true,
        functionDeclaration: `function () {
          const focusable = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea, a[href], summary, [tabindex]:not([tabindex="-1"])';
          const reachable = (e) => e.matches(focusable) || e.tabIndex >= 0;
          if (reachable(this) || this.querySelector(focusable) || (this.parentElement && this.parentElement.closest(focusable))) return '';
          return this.tagName.toLowerCase() + (this.id ? '#' + this.id : '') + (this.className && typeof this.className === 'string' ? '.' + this.className.trim().split(/\\s+/).join('.') : '') + ' "' + (this.textContent || '').trim().slice(0, 40) + '"';
        }`,
      });
      if (verdict.value) out.push(String(verdict.value));
    }
    return out;
  } finally {
    await cdp.detach();
  }
}

/** A CSS colour as VS Code writes its theme variables (#rrggbb, #rrggbbaa, rgb(), rgba()) as [r, g, b, alpha], or null. */
function parseColour(c: string): [number, number, number, number] | null {
  const hex = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(c.trim());
  if (hex) return [0, 2, 4].map((i) => Number.parseInt(hex[1]!.slice(i, i + 2), 16)).concat(hex[2] ? Number.parseInt(hex[2], 16) / 255 : 1) as [number, number, number, number];
  const fn = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+))?\s*\)$/i.exec(c.trim());
  return fn ? [Number(fn[1]), Number(fn[2]), Number(fn[3]), fn[4] === undefined ? 1 : Number(fn[4])] : null;
}

/** The WCAG contrast ratio of a text colour drawn over an opaque background (a translucent text colour blended onto it); 0 if either is unreadable. */
export function contrastRatio(text: string, background: string): number {
  const fg = parseColour(text), bg = parseColour(background);
  if (!fg || !bg) return 0;
  const blended = [0, 1, 2].map((i) => fg[i]! * fg[3] + bg[i]! * (1 - fg[3]));
  const luminance = (rgb: number[]): number => {
    const [r, g, b] = rgb.map((v) => v / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [luminance(blended), luminance(bg)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
