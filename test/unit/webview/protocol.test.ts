import * as assert from 'node:assert/strict';
import { webviewHtml } from '../../../src/extension/viewer/webviewHtml.js';
import { parseHostMessage, parseWebviewMessage, rolloutPanelStateSchema } from '../../../src/webview/protocol.js';

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

  it('escapes the initial state and the title', () => {
    const html = page({ rolloutId: '"><script>alert(1)</script>' });
    assert.doesNotMatch(html, /<script>alert/);
    assert.ok(html.includes('&gt;&lt;script&gt;alert(1)&lt;/script&gt;'), 'the state is attribute-escaped');
    assert.match(html, /<title>Rollout &lt;x&gt;<\/title>/);
  });
});
