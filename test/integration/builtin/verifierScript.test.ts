import assert from 'node:assert/strict';
import type { Sandbox } from '../../../src/core/ports/sandbox.js';
import { configNorms } from '../../../src/builtin/families/configRepair.js';
import { buildFormatCheck } from '../../../src/builtin/families/formatCheck.js';
import type { TextNorm } from '../../../src/builtin/families/verifierScript.js';
import { buildVerifier, normFilter, textNorm } from '../../../src/builtin/families/verifierScript.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, requestFor, testLabels } from '../sandbox/support.js';

// Texts a normalisation must treat as busybox does: surrounding spaces and tabs, CRLF, blank and space-only lines,
// a last line without its newline, lines that sort differently with and without their spaces, config lines.
const texts = [
  '', '\n', 'a\n', 'a', '  b  \n\ta\t\n\n', 'x\r\ny \r\n', ' \n\t\n', 'b,2\na,10\n a,3\nTOTAL,15', 'z\ny\nx\n\n\n',
  '# svc\n\n[server]\nport = 8080\n# workers = 2\n\n[database]\ndb_name=app \ntimeout   =  30\r\n;cache_dir = /x\n',
  'port = 1\nport = 2=3\n  workers =4\n[logging]\nlog_level = warn\n',
];

async function busybox(box: Sandbox, filter: string, text: string): Promise<string> {
  const r = await box.exec(filter, { as: 'agent', stdin: Buffer.from(text) });
  assert.equal(r.stderr, '');
  return r.stdout;
}

describe('built-in verifier and check.sh in busybox (bwrap)', function () {
  let backend: BwrapBackend;
  let box: Sandbox;
  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
    backend = new BwrapBackend();
    box = await backend.start(requestFor({ labels: testLabels }));
  });
  after(async () => {
    await backend?.dispose();
  });

  it('the expected side normalised on the host equals what the sandbox filter prints, for every comparison', async () => {
    const norms: [string, TextNorm][] = [['text 0', textNorm(0)], ['text 1', textNorm(1)], ['text 2', textNorm(2)], ['config 0', configNorms[0]!], ['config 1', configNorms[1]!]];
    for (const [name, norm] of norms) {
      for (const text of texts) assert.equal(norm.apply(text), await busybox(box, normFilter(norm), text), `${name} of ${JSON.stringify(text)}`);
    }
  });

  it('the verifier passes what its strictness forgives and fails the rest, with the diff of the normalised texts', async () => {
    const expected = 'b,7\na,3\nTOTAL,10\n';
    const cases: [number, string, boolean][] = [
      [2, expected, true], [2, 'b,7 \na,3\nTOTAL,10\n', false],
      [1, expected, true], [1, ' b,7  \r\n\na,3\nTOTAL,10', true], [1, 'a,3\nb,7\nTOTAL,10\n', false],
      [0, 'TOTAL,10\n a,3\nb,7\n', true], [0, 'a,3\nTOTAL,10\n', false],
    ];
    for (const [strictness, content, pass] of cases) {
      const v = buildVerifier('test', strictness, [{ key: 'report', label: 'out/r.csv', requireFile: 'out/r.csv', actual: { file: 'out/r.csv' }, expected, norm: textNorm(strictness) }]);
      await box.exec('rm -rf out /tests/* /logs/verifier/*', { as: 'verifier' });
      await box.exec(`mkdir -p out && cat > out/r.csv`, { as: 'agent', stdin: Buffer.from(content) });
      await box.putFiles(v.files, { under: 'tests' });
      const r = await box.exec(['/bin/sh', '-c', v.script], { as: 'verifier' });
      const reward = (await box.exec('cat /logs/verifier/reward.json', { as: 'verifier' })).stdout;
      assert.equal(r.exitCode, pass ? 0 : 1, `strictness ${strictness}, ${JSON.stringify(content)}: ${r.stdout}`);
      assert.equal(reward, `{"report":${pass ? 1 : 0}}\n`);
      if (!pass) assert.match(r.stdout, /^FAIL out\/r\.csv: differs[^\n]*\n--- \/logs\/verifier\/report\.want\n\+\+\+ \/logs\/verifier\/report\.actual\n@@/);
    }
    await box.exec('rm -rf out /tests/* /logs/verifier/*', { as: 'verifier' });
    const v = buildVerifier('test', 1, [{ key: 'report', label: 'out/r.csv', requireFile: 'out/r.csv', actual: { file: 'out/r.csv' }, expected, norm: textNorm(1) }]);
    await box.putFiles(v.files, { under: 'tests' });
    const missing = await box.exec(['/bin/sh', '-c', v.script], { as: 'verifier' });
    assert.equal(missing.stdout, 'FAIL out/r.csv: out/r.csv is missing\n');
    await box.exec('rm -rf /tests/* /logs/verifier/*', { as: 'verifier' });
  });

  it('check.sh prints each problem in order (verbose) or only the verdict (terse)', async () => {
    const rules = { header: '^[a-z]+,[a-z]+$', footers: ['^TOTAL,[0-9]+$'], data: '^[a-z]+,[0-9]+$', sortArgs: '-t, -k2,2nr -k1,1' };
    const run = async (verbose: boolean, content: string): Promise<{ exitCode: number; stdout: string }> => {
      await box.exec('cat > check.sh', { as: 'agent', stdin: Buffer.from(buildFormatCheck(rules, verbose)) });
      await box.exec('cat > r.csv', { as: 'agent', stdin: Buffer.from(content) });
      return box.exec('sh check.sh r.csv', { as: 'agent' });
    };
    const good = await run(true, 'product,revenue\nb,7  \na,3\nTOTAL,10\n');
    assert.deepEqual([good.exitCode, good.stdout], [0, 'check passed\n']);
    const bad = await run(true, 'Product,revenue\na,3\nb,7\nb 7\nTOTAL,x\n');
    assert.equal(bad.exitCode, 1);
    assert.equal(bad.stdout, [
      'problem: line 1 is not a header matching ^[a-z]+,[a-z]+$',
      'problem: the last line does not match ^TOTAL,[0-9]+$',
      'problem: data line not in the format ^[a-z]+,[0-9]+: 3:b 7',
      'problem: data lines are not in order (sort -t, -k2,2nr -k1,1)',
      'check failed', '',
    ].join('\n'));
    const terse = await run(false, 'Product,revenue\na,3\nTOTAL,x\n');
    assert.deepEqual([terse.exitCode, terse.stdout], [1, 'check failed\n']);
    assert.deepEqual([(await run(true, '')).stdout.split('\n')[0]], ['problem: the file is empty']);
  });

  it('check.sh of a manifest names the first three files still in the inbox', async () => {
    const script = buildFormatCheck({ data: '^[A-Za-z]+/[A-Za-z0-9._-]+$', sortArgs: '-k1', movedFrom: 'inbox', footers: ['^total [0-9]+$'] }, true);
    await box.exec('cat > check.sh; rm -rf inbox; mkdir -p inbox; touch inbox/a.txt inbox/b.pdf inbox/c.jpg inbox/d.jpg', { as: 'agent', stdin: Buffer.from(script) });
    await box.exec('cat > M', { as: 'agent', stdin: Buffer.from('JPG/c.jpg\nJPG/d.jpg\nPDF/b.pdf\nTXT/a.txt\nTXT/z.txt\ntotal 5\n') });
    assert.equal((await box.exec('sh check.sh M', { as: 'agent' })).stdout, 'problem: copied, not moved (still in inbox/): c.jpg d.jpg b.pdf \ncheck failed\n');
  });

  it('check.sh of an INI file names the first setting outside its section, a wrong backup and a wrong marker', async () => {
    const original = '[server]\nport = 1\n';
    const md5 = (await box.exec('md5sum', { as: 'agent', stdin: Buffer.from(original) })).stdout.split(' ')[0]!;
    const script = buildFormatCheck({ data: '^(|#.*|\\[[a-z]+\\]|[a-z_]+ = [^ ]+)$', sections: { port: 'server', timeout: 'database' }, backupMd5: md5, namedIn: 'RELOAD' }, true);
    await box.exec('cat > check.sh; printf "[server]\\nport = 1\\n" > c.ini.orig; echo c.ini > RELOAD', { as: 'agent', stdin: Buffer.from(script) });
    await box.exec('cat > c.ini', { as: 'agent', stdin: Buffer.from('[server]\nport = 2\ntimeout = 5\n[database]\n') });
    assert.equal((await box.exec('sh check.sh c.ini', { as: 'agent' })).stdout, 'problem: setting outside its section: timeout (in [server], belongs in [database])\ncheck failed\n');
    await box.exec('echo changed >> c.ini.orig; echo other.ini > RELOAD', { as: 'agent' });
    assert.equal((await box.exec('sh check.sh c.ini', { as: 'agent' })).stdout, [
      'problem: setting outside its section: timeout (in [server], belongs in [database])',
      'problem: c.ini.orig is not a copy of the original file', 'problem: RELOAD does not name c.ini', 'check failed', '',
    ].join('\n'));
  });
});
