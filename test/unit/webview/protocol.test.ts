import * as assert from 'node:assert/strict';
import { webviewHtml } from '../../../src/extension/viewer/webviewHtml.js';
import { staticChunkImports } from '../../../src/webview/chunkImports.js';
import { parseHostMessage } from '../../../src/webview/hostMessage.js';
import { hostMessageSchema, notificationParams, parseWebviewMessage, rolloutPanelStateSchema } from '../../../src/webview/protocolSchemas.js';

describe('webview protocol', () => {
  const ref = { runDir: '/runs/a', generation: 0, rolloutId: 'g0p0-t0' };

  it('accepts known requests and commands with valid params', () => {
    const r = parseWebviewMessage({ kind: 'request', id: 1, method: 'rollout/get', params: ref });
    assert.ok(r.ok && r.message.kind === 'request' && r.message.method === 'rollout/get');
    const c = parseWebviewMessage({ kind: 'command', method: 'rollout/open', params: { ...ref, step: 3 } });
    assert.ok(c.ok && c.message.kind === 'command');
    assert.ok(parseWebviewMessage({ kind: 'ready' }).ok);
  });

  it('refuses unknown methods, bad params and malformed envelopes with a message and the request id', () => {
    const unknown = parseWebviewMessage({ kind: 'request', id: 4, method: 'fs/read', params: {} });
    assert.ok(!unknown.ok && unknown.id === 4 && /unknown request "fs\/read"/.test(unknown.error));
    const bad = parseWebviewMessage({ kind: 'request', id: 5, method: 'rollout/get', params: { ...ref, generation: -1 } });
    assert.ok(!bad.ok && bad.id === 5 && /bad params for rollout\/get/.test(bad.error));
    const extra = parseWebviewMessage({ kind: 'command', method: 'file/open', params: { path: '/x', also: 1 } });
    assert.ok(!extra.ok);
    const proto = parseWebviewMessage({ kind: 'request', id: 6, method: 'constructor', params: {} });
    assert.ok(!proto.ok && /unknown request/.test(proto.error));
    assert.ok(!parseWebviewMessage({ kind: 'eval', code: '1' }).ok);
    assert.ok(!parseWebviewMessage('hello').ok);
  });

  it('checks host envelopes and notification params in the webview', () => {
    assert.ok(parseHostMessage({ kind: 'response', id: 1, ok: true, result: { any: 'thing' } }));
    assert.ok(parseHostMessage({ kind: 'response', id: 1, ok: false, error: 'no' }));
    assert.ok(parseHostMessage({ kind: 'notification', method: 'view/goToStep', params: { step: 2 } }));
    assert.equal(parseHostMessage({ kind: 'notification', method: 'view/goToStep', params: { step: 'two' } }), undefined);
    assert.equal(parseHostMessage({ kind: 'notification', method: 'nope', params: {} }), undefined);
  });

  // The page checks host messages in plain code (no zod in page bundles); they must answer as the host's schemas do.
  it('the page\'s plain check of host messages agrees with the zod schemas on every sample', () => {
    const ref2 = { runDir: 'k', generation: 3, rolloutId: 'r' };
    const params: unknown[] = [
      ref2, { ...ref2, extra: 1 }, { ...ref2, generation: -1 }, { ...ref2, generation: 1.5 }, { ...ref2, generation: 2 ** 60 }, { ...ref2, rolloutId: '' },
      { ...ref2, rolloutId: 'x'.repeat(257) }, { runDir: 'k' }, { runDir: '' }, { runDir: 'x'.repeat(4097) }, { runDir: 'k', more: true }, { runDir: 7 },
      { step: 1 }, { step: 0 }, { step: '2' }, { step: 2, x: 1 }, {}, null, [], 'text', { step: Number.NaN }, { step: Infinity },
    ];
    const samples: unknown[] = [
      null, 1, 'x', [], {}, { kind: 'response' }, { kind: 'response', id: 1, ok: true }, { kind: 'response', id: 1, ok: true, result: null },
      { kind: 'response', id: -1, ok: true, result: 1 }, { kind: 'response', id: 1.5, ok: false, error: 'e' }, { kind: 'response', id: 1, ok: false },
      { kind: 'response', id: 1, ok: false, error: 3 }, { kind: 'response', id: 1, ok: false, error: 'e', result: 1 }, { kind: 'response', id: 1, ok: 'yes', result: 1 },
      { kind: 'response', id: 1, ok: true, result: 1, x: 2 }, { kind: 'notification', method: 'x'.repeat(65), params: {} }, { kind: 'notification', method: 'run/changed' },
      { kind: 'notification', method: 'toString', params: {} }, { kind: 'notification', method: '__proto__', params: {} },
      ...['rollout/changed', 'run/changed', 'dataset/changed', 'view/goToStep'].flatMap((method) => params.map((p) => ({ kind: 'notification', method, params: p }))),
      ...params.map((p) => ({ kind: 'notification', method: 'run/changed', params: p, extra: 1 })),
    ];
    for (const raw of samples) {
      const env = hostMessageSchema.safeParse(raw);
      let zodOk = env.success;
      if (env.success && env.data.kind === 'notification') {
        const schema = Object.hasOwn(notificationParams, env.data.method) ? (notificationParams as Record<string, { safeParse(v: unknown): { success: boolean } }>)[env.data.method] : undefined;
        zodOk = schema !== undefined && schema.safeParse(env.data.params).success;
      }
      assert.equal(parseHostMessage(raw) !== undefined, zodOk, `disagree on ${JSON.stringify(raw)}`);
    }
  });

  it('validates the state a serializer gets back', () => {
    assert.ok(rolloutPanelStateSchema.safeParse({ ...ref, step: 4, tab: 'specs' }).success);
    assert.ok(!rolloutPanelStateSchema.safeParse({ runDir: '/x' }).success);
  });
});

describe('webview HTML shell', () => {
  const page = (state: unknown): string => webviewHtml({
    title: 'Rollout <x>', cspSource: 'https://webview.test', scriptUri: 'https://webview.test/app.js',
    styleUris: ['https://webview.test/codicon.css'], element: 'coevolve-rollout-viewer', state, nonce: 'abc123',
  });

  it('has a strict CSP: nothing by default, scripts only with the nonce, no inline or eval', () => {
    const html = page({});
    const csp = /content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc123'/);
    assert.match(csp, /style-src https:\/\/webview\.test/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.match(html, /<script type="module" nonce="abc123" src="https:\/\/webview\.test\/app\.js">/);
  });

  it("names the script's chunks as modulepreloads with the page's nonce (the CSP allows nothing else)", () => {
    const html = webviewHtml({ title: 't', cspSource: 'https://webview.test', scriptUri: 'https://webview.test/dashboard.js', styleUris: [], element: 'coevolve-dashboard', state: {}, nonce: 'abc123', preloadUris: ['https://webview.test/chunk-chunk-AB12.js'] });
    assert.match(html, /<link rel="modulepreload" nonce="abc123" href="https:\/\/webview\.test\/chunk-chunk-AB12\.js">/);
    assert.doesNotMatch(page({}), /modulepreload/, 'none when the script has no chunks');
  });

  it("finds the chunks a split script imports statically, minified or not, and not the ones it loads with import()", () => {
    const minified = 'import{a as b,c}from"./chunk-chunk-OBWLAH3Q.js";import"./chunk-side-X1.js";var x=()=>import("./chunk-dashboardTabs-RV7OKAW5.js");';
    assert.deepEqual(staticChunkImports(minified), ['chunk-chunk-OBWLAH3Q.js', 'chunk-side-X1.js']);
    const dev = 'import {\n  html\n} from "./chunk-chunk-OBWLAH3Q.js";\nconst later = import("./chunk-dashboardTabs-RV7OKAW5.js");\n';
    assert.deepEqual(staticChunkImports(dev), ['chunk-chunk-OBWLAH3Q.js']);
    assert.deepEqual(staticChunkImports('import x from "../elsewhere/chunk-a.js"; import "./lit.js";'), [], 'only chunks beside the script');
  });

  it('escapes the initial state and the title', () => {
    const html = page({ rolloutId: '"><script>alert(1)</script>' });
    assert.doesNotMatch(html, /<script>alert/);
    assert.ok(html.includes('&gt;&lt;script&gt;alert(1)&lt;/script&gt;'), 'the state is attribute-escaped');
    assert.match(html, /<title>Rollout &lt;x&gt;<\/title>/);
  });
});
