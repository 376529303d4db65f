// The navigation bar of every browser-host page (runs list, dataset, run, dashboard, rollout), filled from the page's URL,
// and the theme classes of the page's body.
// Links only; the run key comes from the URL and is checked before it becomes part of one.
import { browserLinks, safeKey } from '../browserLinks.js';

function link(text: string, href: string, id: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.textContent = text;
  a.href = href;
  a.id = id;
  return a;
}

function fill(nav: HTMLElement): void {
  const p = new URLSearchParams(window.location.search);
  const run = p.get('run') ?? '';
  const brand = link('Coevolve', browserLinks.runs(), 'nav-brand');
  brand.className = 'brand';
  nav.append(brand, link('Runs', browserLinks.runs(), 'nav-runs'), link('Dataset', browserLinks.dataset(), 'nav-dataset'));
  if (safeKey.test(run)) {
    const g = p.get('g');
    nav.append(link(`Run ${run}`, browserLinks.run(run), 'nav-run'), link('Dashboard', browserLinks.dashboard(run), 'nav-dashboard'));
    if (g && /^\d{1,9}$/.test(g)) nav.append(link(`Generation ${g}`, browserLinks.run(run, Number(g)), 'nav-generation'));
  }
  const host = document.querySelector<HTMLMetaElement>('meta[name="coevolve-host"]')?.content;
  const note = document.createElement('span');
  note.className = 'dim';
  note.textContent = host === 'static' ? 'static bundle · read-only' : 'coevolve view · read-only unless curation is allowed';
  const spacer = document.createElement('span');
  spacer.className = 'spacer';
  nav.append(spacer, note);
}

/**
 * The body classes VS Code gives a webview for its theme (vscode-light, vscode-dark, vscode-high-contrast and
 * vscode-high-contrast-light), from the browser's colour scheme and contrast preference, so the panels' styles and
 * chart palettes follow the browser as they follow the editor's theme; kept up to date when the preference changes.
 */
function followTheme(): void {
  const light = matchMedia('(prefers-color-scheme: light)');
  const more = matchMedia('(prefers-contrast: more), (forced-colors: active)');
  const apply = (): void => {
    const kind = more.matches ? (light.matches ? 'vscode-high-contrast-light' : 'vscode-high-contrast') : light.matches ? 'vscode-light' : 'vscode-dark';
    document.body.classList.remove('vscode-light', 'vscode-dark', 'vscode-high-contrast', 'vscode-high-contrast-light');
    document.body.classList.add(...(kind === 'vscode-high-contrast-light' ? ['vscode-high-contrast', kind] : [kind]));
    document.body.dataset['vscodeThemeKind'] = kind;
  };
  apply();
  light.addEventListener('change', apply);
  more.addEventListener('change', apply);
}

followTheme();
const nav = document.querySelector<HTMLElement>('nav.host-nav');
if (nav) fill(nav);
