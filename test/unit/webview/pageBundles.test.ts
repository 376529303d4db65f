import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

// Page bundles ship plain types: validation with zod belongs to the hosts (protocolSchemas.ts). zod was ~450 KB of
// every page, parsed before a page could draw anything; an import of a schema module from page code brings it back.
describe('webview page bundles', () => {
  const root = join(__dirname, '../../..');
  const entries = ['src/webview/apps', 'src/webview/browser'].flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith('.ts')).map((f) => join(root, d, f)));

  it('carry no zod and none of the host-side schema modules', async () => {
    assert.ok(entries.length >= 5, `found the page entries (${entries.length})`);
    const r = await esbuild.build({
      entryPoints: entries, bundle: true, write: false, metafile: true, platform: 'browser', format: 'esm', target: 'es2022', outdir: '/nowhere',
      define: { __COEVOLVE_VERSION__: '"test"' }, logLevel: 'silent',
    });
    for (const [out, meta] of Object.entries(r.metafile.outputs)) {
      if (!meta.entryPoint) continue;
      const banned = Object.keys(meta.inputs).filter((i) => /node_modules\/zod\/|protocolSchemas\.ts$|store\/records\.ts$/.test(i));
      assert.deepEqual(banned, [], `${out} bundles ${banned.join(', ')}`);
    }
  });
});
