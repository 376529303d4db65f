// Page object over the VS Code web workbench (selectors checked on VS Code 1.100 / code-server 4.100.3). Flows
// talk in workbench terms (open a view container, run a command, read the Problems panel) and never in selectors,
// so a later workbench version needs fixes here only.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { webviewFrame } from '../../support/rendered.js';

const ready = 30_000;

export class Workbench {
  constructor(
    readonly page: Page,
    private readonly screenshotDir: string,
  ) {}

  /** Loads the workbench on a folder and waits until the extensions have finished activating. */
  async open(url: string): Promise<void> {
    // The workbench is awaited below; its 'load' event alone can outlast a navigation timeout on a loaded machine.
    await this.page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
    await this.page.locator('.activitybar').waitFor({ timeout: ready });
    await this.waitForActivation();
  }

  /**
   * The status bar says "Activating Extensions..." while activate() runs. It shows up a moment after the workbench,
   * so wait for it to appear (it may have come and gone already on a fast machine), then for it to go.
   */
  async waitForActivation(): Promise<void> {
    const activating = this.page.locator('.statusbar', { hasText: 'Activating Extensions' });
    await activating.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
    await activating.waitFor({ state: 'hidden', timeout: 60_000 });
  }

  activityBarEntry(title: string): Locator {
    // The badge next to an entry carries the same aria-label; the entry itself is the action link.
    return this.page.locator(`.activitybar a.action-label[aria-label^="${title}"]`);
  }

  /** Clicks a view container's activity-bar entry and waits for the side bar to show it. */
  async openViewContainer(title: string): Promise<void> {
    const entry = this.activityBarEntry(title);
    await entry.waitFor({ timeout: ready });
    await entry.click();
    // Park the pointer over the editor area, so the entry's hover label does not cover the side bar in screenshots.
    await this.page.mouse.move(900, 300);
    await this.sideBarTitle().filter({ hasText: title }).waitFor({ timeout: ready });
    // Opening a view activates its extension (onView) if nothing did yet; screenshots should show the settled view.
    await this.waitForActivation();
  }

  /** The side bar's title: "Coevolve" or, while the container shows a single view, "Coevolve: Runs". */
  sideBarTitle(): Locator {
    return this.page.locator('.part.sidebar .composite.title .title-label h2');
  }

  /** A view's section header in the side bar, by view name. */
  viewHeader(name: string): Locator {
    return this.page.locator(`.part.sidebar .pane-header[aria-label^="${name}"]`);
  }

  /** Expands a view's section in the side bar if it is collapsed, and waits for it to be expanded. */
  async expandView(name: string): Promise<void> {
    const header = this.viewHeader(name);
    await header.waitFor({ timeout: ready });
    if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
    await this.page.locator(`.part.sidebar .pane-header[aria-label^="${name}"][aria-expanded="true"]`).waitFor({ timeout: ready });
  }

  /**
   * A row of a side-bar view showing `text`. Twice on CI (never locally: alone, after the activity-bar flow, or under
   * three busy loops) the Environments view showed no row for the spec the authoring flow had just saved, and the
   * screenshot of the failure stayed on the CI machine, so why is not known. So after `firstWaitMs` this logs what the side bar showed,
   * collapses and expands the view as a user would (the tree asks the extension for its children again), and only
   * then fails, with the side bar's state in the message: a stale tree is then on record, not hidden.
   */
  async viewRow(view: string, text: string, firstWaitMs = 30_000): Promise<Locator> {
    const row = this.page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();
    if (await row.waitFor({ timeout: firstWaitMs }).then(() => true, () => false)) return row;
    console.log(`      the ${view} view shows no row "${text}" after ${firstWaitMs / 1000} s; collapsing and expanding it (${await this.sideBarState()})`);
    await this.screenshot(`missing-row-${view.replace(/[^a-z0-9-]/gi, '')}`);
    const header = this.viewHeader(view);
    if ((await header.getAttribute('aria-expanded').catch(() => null)) === 'true') await header.click();
    await this.expandView(view);
    await row.waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message.split('\n')[0]}: no row "${text}" in the ${view} view, also after collapsing and expanding it; ${await this.sideBarState()}`);
    });
    return row;
  }

  /** Whether the side bar is on screen, its views' headers (expanded or not) and its text, for a failure message. */
  async sideBarState(): Promise<string> {
    const bar = this.page.locator('.part.sidebar');
    const box = await bar.boundingBox().catch(() => null);
    const headers = await this.page.locator('.part.sidebar .pane-header').evaluateAll((els) => els.map((e) => `${e.getAttribute('aria-label')}=${e.getAttribute('aria-expanded')}`)).catch(() => []);
    const text = ((await bar.innerText({ timeout: 2_000 }).catch(() => '')) || '').replace(/\s+/g, ' ').slice(0, 600);
    return `side bar ${box ? `${Math.round(box.width)}x${Math.round(box.height)}` : 'not on screen'}; headers: ${JSON.stringify(headers)}; text: ${JSON.stringify(text)}; ${await this.state()}`;
  }

  /** The welcome content (contributes.viewsWelcome) shown by an empty view. */
  viewWelcome(): Locator {
    return this.page.locator('.part.sidebar .welcome-view-content');
  }

  /**
   * Opens a quick input with `key` (F1: the command palette, Control+P: Quick Open) and types `text` into it. It can
   * close between opening and typing (a toast or a webview from the previous step takes focus, or the key landed while
   * the last one was fading out), so a fill that finds it hidden opens it again rather than waiting on an input that
   * will not come back.
   */
  private async fillQuickInput(key: string, text: string, what: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    for (let i = 0; i < 5; i++) {
      await this.page.keyboard.press(key);
      const opened = await input.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false);
      if (opened && (await input.fill(text, { timeout: 5_000 }).then(() => true, () => false)) && (await input.inputValue().catch(() => '')) === text) return;
      await this.closeQuickInput();
    }
    throw new Error(`${what} did not stay open to take "${text}"`);
  }

  /** Escape, and wait until the quick input has gone: one still fading out looks open and then hides under a fill. */
  async closeQuickInput(): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.page.locator('.quick-input-widget input').waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }

  /** Opens the command palette and types `text` into it (see fillQuickInput). */
  async fillPalette(text: string): Promise<void> {
    await this.fillQuickInput('F1', text, 'the command palette');
  }

  /**
   * Types `text` into the quick input `key` opens and waits for a row showing `rowText`. The input can also close after
   * the fill, before its list shows the row: then it is opened again.
   */
  private async fillUntilRow(key: string, text: string, rowText: string, what: string): Promise<void> {
    const row = this.quickPickRow(rowText);
    for (let i = 0; i < 3; i++) {
      await this.fillQuickInput(key, text, what);
      if (await row.waitFor({ timeout: i < 2 ? 10_000 : ready }).then(() => true, () => false)) return;
      await this.closeQuickInput();
    }
    throw new Error(`${what} showed no "${rowText}" for "${text}", three times`);
  }

  /** Runs a command from the palette by its full title, e.g. "Coevolve: Validate Workspace Specs". */
  async runCommand(title: string): Promise<void> {
    await this.fillUntilRow('F1', `>${title}`, title, 'the command palette');
    await this.page.keyboard.press('Enter');
  }

  /**
   * Runs a command that asks for an item in a quick pick (a run, a rollout) and picks the row showing `item`. The
   * pick can lose focus and hide before its row is clicked (seen under load: the row found, never visible), so a
   * pick that hides runs the command again.
   */
  async runCommandAndPick(title: string, item: string): Promise<void> {
    const row = this.quickPickRow(item);
    for (let i = 0; i < 3; i++) {
      await this.runCommand(title);
      if (await row.click({ timeout: i < 2 ? 15_000 : ready }).then(() => true, () => false)) return;
      await this.closeQuickInput();
    }
    throw new Error(`"${title}" offered no visible "${item}" to pick, three times`);
  }

  /** Opens a workspace file through Quick Open (Control+P), opening it again if it hides before the file shows. */
  async openFile(name: string): Promise<void> {
    await this.fillUntilRow('Control+P', name, name, 'Quick Open');
    await this.page.keyboard.press('Enter');
    await this.page.locator('.tab.active', { hasText: name }).waitFor({ timeout: ready });
  }

  /** The first row of the open quick input (palette, Quick Open or a quick pick) that shows `text`. */
  quickPickRow(text: string): Locator {
    return this.page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  }

  notification(text: string | RegExp): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text });
  }

  async openProblemsPanel(): Promise<void> {
    await this.runCommand('View: Focus Problems');
    await this.page.locator('.markers-panel').waitFor({ timeout: ready });
  }

  problemRows(): Locator {
    return this.page.locator('.markers-panel .monaco-list-row');
  }

  /**
   * The webview frame showing `selector`. Late in the full e2e layer (after seven flows in one code-server) a new
   * webview has stayed blank: the rollout viewer once on CI, the dashboard once in a local run; both passed when their
   * flow ran alone. That is code-server's webview host, not the page (a blank frame, not our error text), so after
   * `firstWaitMs` this reloads the webviews as a user would (Developer: Reload Webviews), saying so with the
   * workbench's tabs, every frame's text and a screenshot, and only then fails. A page of ours that is slow to show
   * its data gets the reload too; the log line says it happened.
   */
  async webview(selector: string, what: string, firstWaitMs = 30_000): Promise<Frame> {
    return webviewFrame(this.page, selector, firstWaitMs).catch(async () => {
      console.log(`      ${what} shows no ${selector} after ${firstWaitMs / 1000} s; reloading the webviews (${await this.state()})`);
      await this.screenshot(`blank-webview-${selector.replace(/[^a-z0-9-]/gi, '')}`);
      await this.runCommand('Developer: Reload Webviews');
      return webviewFrame(this.page, selector, 60_000).catch(async (err: Error) => {
        throw new Error(`${err.message} (${what}), also after reloading the webviews; ${await this.state()}`);
      });
    });
  }

  /** The open tabs and the start of every frame's text, for a failure message. */
  async state(): Promise<string> {
    const tabs = await this.page.locator('.tab').allTextContents();
    const frames = await Promise.all(this.page.frames().map(async (f) => (await f.locator('body').innerText({ timeout: 2_000 }).catch(() => '')).replace(/\s+/g, ' ').slice(0, 160)));
    return `tabs: ${JSON.stringify(tabs.map((t) => t.trim()))}; frames: ${JSON.stringify(frames.filter(Boolean))}`;
  }

  /** Saves a PNG under artifacts/screenshots/ and returns its path; look at it, then assert on the DOM. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(this.screenshotDir, { recursive: true });
    const path = join(this.screenshotDir, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }
}
