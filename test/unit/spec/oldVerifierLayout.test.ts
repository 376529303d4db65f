// Issue 11 (verifier layout): a spec written before the trust rule copied its verifier files into the workspace
// and wrote its reward to verifier.rewardFile (default /tmp/coevolve/reward.json). Both now give reward 0 with no
// other sign; `coevolve validate` must say so, on the field, and stay quiet for specs of the current layout.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { runValidate } from '../../../src/cli/commands/validate.js';
import { builtinFamilies } from '../../../src/builtin/families/registry.js';
import { createRng } from '../../../src/core/ports/rng.js';
import { verifierLayoutWarnings } from '../../../src/core/spec/verifierLayout.js';

async function validate(dir: string, file: string): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runValidate([file], {}, { out: (t) => { out += t; }, cwd: dir });
  return { code, out };
}

describe('validate warns about specs of the verifier layout before the trust rule', () => {
  let tmp: string;
  before(() => { tmp = mkdtempSync(join(tmpdir(), 'coevolve-old-layout-')); });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('workspace-relative verifier files and a rewardFile elsewhere: a warning on each field, with file:line:column', async () => {
    const spec = parseYaml(readFileSync('environments/log-triage.env.yaml', 'utf8')) as Record<string, any>;
    spec.verifier = {
      timeoutSec: 10,
      rewardFile: '/tmp/coevolve/reward.json',
      files: [{ path: '.verifier/errors.expected', content: '3\n' }, { path: 'check.py', content: 'print(1)\n' }],
      script: 'cmp errors.txt .verifier/errors.expected || exit 1\npython3 ./check.py\necho \'{"score": 1}\' > /tmp/coevolve/reward.json\n',
    };
    writeFileSync(join(tmp, 'old.env.yaml'), stringifyYaml(spec));
    const { code, out } = await validate(tmp, 'old.env.yaml');
    assert.equal(code, 0, 'warnings, not errors: the spec still runs');
    const lines = out.trim().split('\n');
    const text = readFileSync(join(tmp, 'old.env.yaml'), 'utf8').split('\n');
    const at = (needle: string): number => text.findIndex((l) => l.includes(needle)) + 1;
    assert.ok(lines.some((l) => l.startsWith(`old.env.yaml:${at('rewardFile:')}:`) && /warning: verifier\.rewardFile is deprecated and ignored: the reward is read only from \/logs\/verifier\/reward\.json, else \/logs\/verifier\/reward\.txt, so what this verifier writes to "\/tmp\/coevolve\/reward\.json" is never read/.test(l)), out);
    assert.ok(lines.some((l) => l.startsWith(`old.env.yaml:${at('path: .verifier/errors.expected')}:`) && /warning: verifier file "\.verifier\/errors\.expected" is written to \/tests\/\.verifier\/errors\.expected, not into the workspace.*read \/tests\/\.verifier\/errors\.expected/.test(l)), out);
    assert.ok(lines.some((l) => l.startsWith(`old.env.yaml:${at('path: check.py')}:`) && /warning: verifier file "check\.py"/.test(l)), out);
    assert.match(lines.at(-1)!, /^3 warnings in 1 of 1 spec file$/);
  });

  it('the old default reward file written by a script without rewardFile is named too', () => {
    const env = builtinFamilies[0]!.generate({ level: 1 }, createRng(1));
    const old = { ...env, verifier: { ...env.verifier, rewardFile: undefined, script: 'echo 1 > /tmp/coevolve/reward.txt' } };
    assert.deepEqual(verifierLayoutWarnings(old).map((w) => w.path), [['verifier', 'script']]);
  });

  it('no warning for the current layout: the examples, every built-in family at every level, /tests paths, cd /tests', async () => {
    for (const f of ['log-triage.env.yaml', 'csv-report.env.yaml', 'config-repair.env.yaml']) {
      const { out } = await validate('environments', f);
      assert.match(out, /no problems/, `${f}: ${out}`);
    }
    for (const family of builtinFamilies) {
      for (let level = 1; level <= family.maxLevel; level++) {
        const env = family.generate({ level }, createRng(level));
        assert.deepEqual(verifierLayoutWarnings(env), [], `${family.name} level ${level}`);
      }
    }
    const env = builtinFamilies[0]!.generate({ level: 1 }, createRng(1));
    const files = [{ path: 'want.txt', content: 'x' }];
    for (const script of ['cmp out.txt /tests/want.txt', 'cmp out.txt "$T/want.txt"', 'cd /tests && cmp want.txt "$OLDPWD/out.txt"', 'cmp out.txt /tests/./want.txt.bak']) {
      assert.deepEqual(verifierLayoutWarnings({ ...env, verifier: { ...env.verifier, files, script } }), [], script);
    }
    assert.equal(verifierLayoutWarnings({ ...env, verifier: { ...env.verifier, files, script: 'cmp out.txt want.txt' } }).length, 1);
  });
});
