import * as assert from 'node:assert/strict';
import * as esbuild from 'esbuild';

/**
 * The extension bundle's static import graph, from the same entry and externals as scripts/build.mjs: a package
 * reached only through `import()` is evaluated when first used, not at activation.
 */
async function staticGraph(): Promise<Map<string, string | null>> {
  const r = await esbuild.build({
    entryPoints: ['src/extension/extension.ts'], bundle: true, platform: 'node', format: 'cjs', write: false, metafile: true,
    external: ['vscode', 'cpu-features', '*.node'], logLevel: 'silent', outfile: 'out/lazy-check.js',
  });
  const inputs = r.metafile.inputs;
  const entry = 'src/extension/extension.ts';
  const prev = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const i of inputs[file]?.imports ?? []) {
      if (i.kind === 'dynamic-import' || prev.has(i.path)) continue;
      prev.set(i.path, file);
      queue.push(i.path);
    }
  }
  return prev;
}

function chainTo(prev: Map<string, string | null>, target: string): string[] | undefined {
  const hit = [...prev.keys()].find((k) => k.includes(target));
  if (!hit) return undefined;
  const chain: string[] = [];
  for (let f: string | null | undefined = hit; f; f = prev.get(f)) chain.unshift(f);
  return chain;
}

describe('extension activation loads no sandbox or model client', function () {
  this.timeout(60_000);
  let graph: Map<string, string | null>;
  before(async () => {
    graph = await staticGraph();
  });
  it('the graph walk reaches the extension\'s own modules', () => {
    assert.ok(graph.has('src/extension/authoring/activateAuthoring.ts'));
  });
  for (const pkg of ['node_modules/dockerode/', 'node_modules/ssh2/', 'node_modules/openai/']) {
    it(`${pkg.split('/')[1]} is reached only through import(), on first use`, () => {
      const chain = chainTo(graph, pkg);
      assert.equal(chain, undefined, `statically imported at activation: ${chain?.join(' -> ')}`);
    });
  }
});
