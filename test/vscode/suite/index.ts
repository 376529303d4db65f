// Loaded by the extension host through `extensionTestsPath`: runs every bundled *.test.js next to it with mocha and
// writes the counts to COEVOLVE_VSCODE_RESULTS (the server passes its environment on to the host).
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  failures: { title: string; error: string }[];
  skips: string[];
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * The host's console reaches the browser mixed with the workbench's own chatter; a marker on every reporter line
 * lets the runner print the spec output and keep the rest in a log file.
 */
const suiteLineMarker = '[coevolve-suite] ';

function markReporterOutput(): void {
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  base.consoleLog = (...args: unknown[]) => {
    for (const line of format(...args).split('\n')) console.log(suiteLineMarker + line);
  };
}

export function run(): Promise<void> {
  markReporterOutput();
  const grep = process.env.COEVOLVE_VSCODE_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  for (const file of testFiles(__dirname)) mocha.addFile(file);
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, failures: [], skips: [] };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.COEVOLVE_VSCODE_RESULTS;
      if (out) writeFileSync(out, JSON.stringify(counts));
      console.log(`${suiteLineMarker}vscode suite: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else resolve();
    });
    runner.on('pass', () => counts.passed++);
    runner.on('fail', (test, err: unknown) => {
      counts.failed++;
      counts.failures.push({ title: test.fullTitle(), error: err instanceof Error ? err.message : String(err) });
    });
    runner.on('pending', (test) => {
      counts.skipped++;
      counts.skips.push(test.fullTitle());
    });
  });
}
