import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

interface Contributes {
  commands: { command: string; enablement?: string }[];
  menus: Record<string, { command: string; when?: string }[]>;
}

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { contributes: Contributes };
/** The authoring commands that execute code from the workspace (oracles, verifiers, setup commands, runs). */
const running = ['coevolve.validateEnvironment', 'coevolve.playEnvironment', 'coevolve.evolveEnvironment', 'coevolve.startRunFromSpec', 'coevolve.startRun', 'coevolve.runDemo', 'coevolve.resumeRun', 'coevolve.rerunRollout'];

describe('authoring: workspace trust in the contributions', () => {
  it('disables every command that runs an environment in untrusted workspaces', () => {
    for (const id of running) {
      const c = pkg.contributes.commands.find((x) => x.command === id);
      assert.ok(c, `${id} is contributed`);
      assert.match(c.enablement ?? '', /isWorkspaceTrusted/, `${id} is enabled only when trusted`);
    }
  });

  it('shows their menu entries only in trusted workspaces; viewing and curation stay available', () => {
    for (const [where, items] of Object.entries(pkg.contributes.menus)) {
      for (const item of items.filter((i) => running.includes(i.command))) {
        assert.match(item.when ?? '', /isWorkspaceTrusted/, `${item.command} in ${where}`);
      }
    }
    const curation = pkg.contributes.commands.filter((c) => c.command.startsWith('coevolve.curation.') || c.command === 'coevolve.newEnvironment');
    assert.ok(curation.length >= 6);
    for (const c of curation) assert.equal(c.enablement, undefined, `${c.command} works in untrusted workspaces`);
  });

  it('contributes the generated JSON Schemas for YAML and JSON specs', () => {
    const yaml = (pkg.contributes as unknown as { yamlValidation: { fileMatch: string[]; url: string }[] }).yamlValidation;
    for (const [suffix, schema] of [['env', 'environment'], ['user', 'user'], ['run', 'run']]) {
      const entry = yaml.find((e) => e.fileMatch.includes(`*.${suffix}.yaml`));
      assert.equal(entry?.url, `./environments/schemas/${schema}.schema.json`);
      readFileSync(new URL(`../../../${entry!.url}`, import.meta.url));
    }
  });
});
