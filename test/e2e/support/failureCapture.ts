// Root hook plugin (mocha --require): when an e2e test fails, save what every open workbench showed at that moment —
// a screenshot and the side bar's and notifications' text — next to the screenshots, so a failure on a CI machine
// can be read afterwards instead of guessed at.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'mocha';
import { openWorkbenches } from './session.js';

async function capture(ctx: Context): Promise<void> {
  const test = ctx.currentTest;
  if (!test || test.state !== 'failed') return;
  const dir = process.env.COEVOLVE_E2E_SCREENSHOTS;
  if (!dir) return;
  const name = `FAILED-${test.fullTitle().replace(/[^A-Za-z0-9]+/g, '-').slice(0, 100)}`;
  mkdirSync(dir, { recursive: true });
  let index = 0;
  for (const wb of openWorkbenches()) {
    const file = join(dir, `${name}${index === 0 ? '' : `-${index}`}`);
    index++;
    await wb.page.screenshot({ path: `${file}.png`, timeout: 10_000 }).catch(() => undefined);
    const text = await wb.page
      .evaluate(() => ['.part.sidebar', '.notifications-toasts', '.part.panel'].map((s) => `== ${s}\n${(document.querySelector(s) as HTMLElement | null)?.innerText ?? '(absent)'}`).join('\n\n'))
      .catch((err: unknown) => `could not read the page: ${String(err)}`);
    writeFileSync(`${file}.txt`, `${test.fullTitle()}\n${test.err?.message ?? ''}\n\n${text}\n`);
    console.log(`    saved what the workbench showed: ${file}.png, ${file}.txt`);
  }
}

export const mochaHooks = {
  async afterEach(this: Context): Promise<void> {
    await capture(this);
  },
};
