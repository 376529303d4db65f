import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string; enablement?: string }[];
    walkthroughs: { id: string; steps: { id: string; description: string; media: { markdown?: string }; completionEvents: string[] }[] }[];
    viewsWelcome: { view: string; contents: string; when?: string }[];
  };
};
const commands = new Set(pkg.contributes.commands.map((c) => c.command));
const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8');

describe('getting started: walkthrough and empty states', () => {
  const walk = pkg.contributes.walkthroughs.find((w) => w.id === 'getStarted');

  it('walks from an empty folder to a finished run and its dashboard, each step done by its command', () => {
    assert.ok(walk, 'the walkthrough is contributed');
    assert.deepEqual(walk.steps.slice(0, 3).map((s) => s.completionEvents), [['onCommand:coevolve.init'], ['onCommand:coevolve.runDemo'], ['onCommand:coevolve.openDashboard']]);
    for (const step of walk.steps) {
      for (const ev of step.completionEvents) assert.ok(commands.has(ev.replace('onCommand:', '')), `${step.id}: ${ev} is a contributed command`);
      for (const m of step.description.matchAll(/\(command:([\w.]+)\)/g)) assert.ok(commands.has(m[1]!), `${step.id} links ${m[1]}`);
      assert.ok(step.media.markdown && existsSync(join(root, step.media.markdown)), `${step.id}: ${step.media.markdown} exists`);
    }
  });

  it('ships what the walkthrough and "Set Up Workspace" read: the pages and the example specs', () => {
    assert.match(ignore, /^!media\/walkthrough\/\*\.md$/m);
    assert.match(ignore, /^!environments\/\*\.yaml$/m);
    assert.ok(existsSync(join(root, 'environments/demo.run.yaml')));
  });

  it('offers the demo in an empty Runs view only when trusted, and says why not otherwise', () => {
    const runs = pkg.contributes.viewsWelcome.filter((w) => w.view === 'coevolve.runs');
    const trusted = runs.find((w) => w.contents.includes('command:coevolve.runDemo'));
    assert.match(trusted?.when ?? '', /isWorkspaceTrusted/);
    const untrusted = runs.find((w) => w.when === '!isWorkspaceTrusted');
    assert.ok(untrusted && !untrusted.contents.includes('runDemo') && /not trusted/.test(untrusted.contents));
    assert.match(pkg.contributes.commands.find((c) => c.command === 'coevolve.runDemo')?.enablement ?? '', /isWorkspaceTrusted/);
  });
});
