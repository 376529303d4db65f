// What a flow needs to reach the code-server that test/e2e/run.mjs started: its URL, the workspace it should open,
// Chromium, and where screenshots go. Each flow gets its own browser profile.
import { launchBrowser, type BrowserSession } from '../../support/codeServer.js';
import { Workbench } from './workbench.js';

export interface E2eSession {
  browser: BrowserSession;
  workbench: Workbench;
  /** Absolute path of the workspace folder on the server's disk. */
  workspace: string;
}

export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the e2e flows through test/e2e/run.mjs, which starts code-server`);
  return value;
}

const open = new Set<Workbench>();

/** The workbenches of the flows' sessions whose page is still open (for the failure capture). */
export function openWorkbenches(): Workbench[] {
  for (const wb of open) if (wb.page.isClosed()) open.delete(wb);
  return [...open];
}

export async function openWorkbench(): Promise<E2eSession> {
  const url = required('COEVOLVE_E2E_URL');
  const workspace = required('COEVOLVE_E2E_WORKSPACE');
  const browser = await launchBrowser(process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', { width: 1400, height: 850 });
  const workbench = new Workbench(browser.page, required('COEVOLVE_E2E_SCREENSHOTS'));
  open.add(workbench);
  await workbench.open(`${url}/?${new URLSearchParams({ folder: workspace }).toString()}`);
  return { browser, workbench, workspace };
}
