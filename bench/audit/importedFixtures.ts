// The real-task fixtures (11 Harbor tasks, 3 Terminal-Bench 1 tasks converted to Harbor's layout) as the specs
// `coevolve import` makes of them, with their images built by content (`coevolve sandbox build`, cached).
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { runSandboxBuild } from '../../src/cli/commands/sandboxBuild.js';
import { assignTaskImages } from '../../src/cli/run/taskImages.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { importHarborTasks } from '../../src/datasets/harborImport.js';
import { importTb1Tasks } from '../../src/datasets/tb1Import.js';

export const realTaskFixtures = resolve('test/fixtures/real-tasks');

/** Every fixture task folder (the TB1 ones converted under `tmp`), built; their imported specs name the built images. */
export async function importedFixtureSpecs(docker: Docker, tmp: string, labels: Record<string, string>): Promise<{ folders: string[]; specs: EnvironmentSpec[] }> {
  const tb1 = importTb1Tasks([join(realTaskFixtures, 'tb1')], { harborOut: join(tmp, 'tb1') });
  if (tb1.skipped.length > 0) throw new Error(`TB1 fixtures did not convert: ${JSON.stringify(tb1.skipped)}`);
  const harbor = join(realTaskFixtures, 'harbor');
  const folders = [...readdirSync(harbor).map((n) => join(harbor, n)), ...readdirSync(join(tmp, 'tb1')).map((n) => join(tmp, 'tb1', n))];
  const o = { cwd: process.cwd(), out: () => undefined, err: (t: string) => process.stderr.write(t) };
  const built = await runSandboxBuild(folders, { labels }, o, docker);
  if (built.code !== 0) throw new Error('the fixture images did not build');
  const imported = importHarborTasks(folders);
  if (imported.skipped.length > 0) throw new Error(`fixtures did not import: ${JSON.stringify(imported.skipped)}`);
  await assignTaskImages(imported, process.cwd());
  return { folders, specs: imported.imported.map((i) => i.spec) };
}
