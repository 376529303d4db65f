import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { stringify } from 'yaml';
import { findFamily } from '../../../src/builtin/families/registry.js';
import { createRng } from '../../../src/core/ports/rng.js';
import type { CoevolveApi } from '../../../src/extension/api.js';
import { environmentScaffold } from '../../../src/extension/authoring/scaffolds.js';
import type { Problem } from '../../../src/core/spec/problems.js';
import { replaceProperty } from '../../support/replaceProperty.js';
import { needService } from '../../support/services.js';

const extensionId = 'coevolve.coevolve';

async function api(): Promise<CoevolveApi> {
  const ext = vscode.extensions.getExtension<CoevolveApi>(extensionId);
  assert.ok(ext, 'the extension is loaded');
  return ext.activate();
}

function folder(): vscode.Uri {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'a workspace folder is open');
  return f.uri;
}

async function writeFile(rel: string, text: string): Promise<vscode.Uri> {
  const uri = vscode.Uri.joinPath(folder(), rel);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  return uri;
}

/** Resolves once `probe` returns a value, re-checking whenever diagnostics change; fails after `ms`. */
function whenDiagnostics<T>(probe: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = probe();
    if (first !== undefined) return resolve(first);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const sub = vscode.languages.onDidChangeDiagnostics(() => {
      const v = probe();
      if (v === undefined) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(v);
    });
  });
}

/** What `coevolve validate --json` reports for a file, through the CLI bundled with the extension. */
function cliProblems(uri: vscode.Uri): Problem[] {
  const cli = join(vscode.extensions.getExtension(extensionId)!.extensionPath, 'dist/cli.js');
  const r = spawnSync(process.execPath, [cli, 'validate', '--json', uri.fsPath], { cwd: folder().fsPath, encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  assert.ok(r.stdout.trim().startsWith('['), `the CLI printed JSON (exit ${r.status}): ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as Problem[];
}

const rangeText = (r: vscode.Range): string => `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;

const brokenSpec = `apiVersion: coevolve/v1
kind: Environment
id: Typo Id
title: A spec with mistakes
instruction: Do the thing.
sandbox:
  limits:
    memryMb: 128
    pids: 2
verifier:
  script: exit 0
oracle:
  script: exit 0
user:
  request: please
  goal: done
`;

describe('authoring: live diagnostics', () => {
  before(async () => {
    await api();
  });

  it('opening a broken spec shows the CLI\'s problems at the CLI\'s exact ranges', async () => {
    const uri = await writeFile('authoring-broken.env.yaml', brokenSpec);
    await vscode.window.showTextDocument(uri);
    const expected = cliProblems(uri);
    assert.ok(expected.length >= 3, `the CLI reports the three mistakes: ${JSON.stringify(expected)}`);
    const diagnostics = await whenDiagnostics(() => {
      const d = vscode.languages.getDiagnostics(uri);
      return d.length === expected.length ? d : undefined;
    }, `${expected.length} diagnostics on the broken spec`);
    const got = diagnostics.map((d) => `${rangeText(d.range)} ${d.message}`).sort();
    const want = expected.map((p) => `${p.line - 1}:${p.column - 1}-${p.endLine - 1}:${p.endColumn - 1} ${p.message}`).sort();
    assert.deepEqual(got, want);
  });

  it('clears the diagnostics as the spec is fixed in the editor, without saving', async () => {
    const uri = vscode.Uri.joinPath(folder(), 'authoring-broken.env.yaml');
    const editor = await vscode.window.showTextDocument(uri);
    const fixed = brokenSpec.replace('id: Typo Id', 'id: typo-id').replace('memryMb', 'memoryMb').replace('pids: 2', 'pids: 16');
    await editor.edit((e) => e.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), fixed));
    await whenDiagnostics(() => (vscode.languages.getDiagnostics(uri).length === 0 ? true : undefined), 'the diagnostics to clear');
    assert.equal(editor.document.isDirty, true, 'validated from the editor text, not the disk');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('reports a run that names a missing environment on the run file, at the entry', async () => {
    const uri = await writeFile('authoring.run.yaml', 'apiVersion: coevolve/v1\nkind: Run\nname: demo\npopulation:\n  environments:\n    - nowhere.env.yaml\n');
    const [d] = await whenDiagnostics(() => {
      const list = vscode.languages.getDiagnostics(uri);
      return list.length > 0 ? list : undefined;
    }, 'a diagnostic on the run file');
    assert.match(d!.message, /"nowhere\.env\.yaml" does not exist/);
    assert.equal(rangeText(d!.range), '5:6-5:22');
    await writeFile('nowhere.env.yaml', environmentScaffold('nowhere'));
    await whenDiagnostics(() => (vscode.languages.getDiagnostics(uri).length === 0 ? true : undefined), 'the run file to clear once the environment exists');
  });

  it('the Validate Workspace Specs command reports the same problems, cross-file ones included', async () => {
    await writeFile('dup-a.env.yaml', environmentScaffold('twin'));
    const b = await writeFile('dup-b.env.yaml', environmentScaffold('twin'));
    const summary = await vscode.commands.executeCommand<{ files: number; errors: number }>('coevolve.validateWorkspace');
    assert.ok(summary.files >= 4);
    const dup = vscode.languages.getDiagnostics(b).find((d) => d.message.startsWith('duplicate Environment id "twin"'));
    assert.ok(dup, 'the duplicate id is reported on the later file');
    for (const f of ['dup-a.env.yaml', 'dup-b.env.yaml', 'nowhere.env.yaml', 'authoring.run.yaml']) await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), f));
  });
});

describe('authoring: completion, hover and quick fixes', () => {
  let uri: vscode.Uri;
  before(async () => {
    await api();
    uri = await writeFile('authoring-assist.env.yaml', 'apiVersion: coevolve/v1\nkind: Environment\nid: assist\nsandbox:\n  limits:\n    memoryMb: 128\n    \n  workdir: /workspace\nknobs:\n  horizon: 2\n');
    await vscode.window.showTextDocument(uri);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(uri);
  });

  it('offers the keys valid at the cursor, with what each accepts', async () => {
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(6, 4));
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    for (const key of ['pids', 'cpus', 'commandTimeoutSec', 'maxOutputBytes', 'diskMb']) assert.ok(labels.includes(key), `${key} is offered: ${labels.join(', ')}`);
    assert.ok(!labels.includes('memoryMb'), 'a key already present is not offered');
    assert.ok(!labels.includes('image'), 'keys of another mapping are not offered');
    const pids = list.items.find((i) => i.label === 'pids')!;
    assert.equal(pids.detail, 'an integer between 8 and 4096 · default 64');
  });

  it('shows the zod description on hover', async () => {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(5, 6));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /sandbox\.limits\.memoryMb/);
    assert.match(text, /Memory limit of the sandbox/);
  });

  it('offers the closest valid key for an unknown key', async () => {
    const typo = await writeFile('authoring-typo.env.yaml', brokenSpec.replace('id: Typo Id', 'id: typo'));
    await vscode.window.showTextDocument(typo);
    const diagnostic = await whenDiagnostics(() => vscode.languages.getDiagnostics(typo).find((d) => d.message.startsWith('unknown key "memryMb"')), 'the unknown-key diagnostic');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', typo, diagnostic.range, vscode.CodeActionKind.QuickFix.value);
    const preferred = actions.find((a) => a.isPreferred);
    assert.equal(preferred?.title, 'Change "memryMb" to "memoryMb"');
    assert.ok(await vscode.workspace.applyEdit(preferred!.edit!));
    await whenDiagnostics(() => (vscode.languages.getDiagnostics(typo).some((d) => d.message.includes('memryMb')) ? undefined : true), 'the unknown key to be fixed');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.workspace.fs.delete(typo);
  });
});

describe('authoring: Test Explorer refresh and runs that need no sandbox', () => {
  let a: CoevolveApi;
  const broken = (): vscode.Uri => vscode.Uri.joinPath(folder(), 'broken.env.yaml');
  const example = (): vscode.Uri => vscode.Uri.joinPath(folder(), 'examples/log-triage.env.yaml');

  /** What a refresh may change: the index's files, the broken spec's diagnostics and the test items. */
  const snapshot = (): { files: string[]; brokenProblems: number; items: string[] } => {
    const items: string[] = [];
    a.authoring.tests.controller.items.forEach((i) => items.push(i.id));
    return { files: a.authoring.live.index.fileNames(), brokenProblems: vscode.languages.getDiagnostics(broken()).length, items: items.sort() };
  };

  /** The snapshot of a whole index: a refresh test that found it emptied by the one before would prove nothing. */
  const wholeSnapshot = (): ReturnType<typeof snapshot> => {
    const s = snapshot();
    assert.ok(s.files.length >= 3 && s.brokenProblems > 0 && s.items.length >= 2, `the workspace's specs are indexed: ${JSON.stringify(s)}`);
    return s;
  };

  before(async () => {
    a = await api();
  });

  // A failing refresh test may leave the index emptied; each test, and the suites after this one, start from it whole.
  beforeEach(async () => {
    await a.authoring.live.refreshAll();
  });

  after(async () => {
    await a.authoring.live.refreshAll();
  });

  it('a refresh cancelled before it starts leaves the index, diagnostics and test items as they were', async () => {
    const before = wholeSnapshot();
    const source = new vscode.CancellationTokenSource();
    source.cancel();
    await a.authoring.tests.controller.refreshHandler!(source.token);
    source.dispose();
    assert.deepEqual(snapshot(), before);
  });

  it('a refresh cancelled after its first file keeps the files it had not reached', async () => {
    const before = wholeSnapshot();
    const source = new vscode.CancellationTokenSource();
    const find = vscode.workspace.findFiles.bind(vscode.workspace);
    let searches = 0;
    const restore = replaceProperty(vscode.workspace, 'findFiles', (async (...args: Parameters<typeof find>) => {
      searches++;
      return cancelAfterFirst(await find(...args), source);
    }) as typeof find);
    try {
      await a.authoring.tests.controller.refreshHandler!(source.token);
    } finally {
      restore();
      source.dispose();
    }
    assert.equal(searches, 1, 'the refresh listed the spec files through the stub');
    assert.ok(source.token.isCancellationRequested, 'the refresh went past its first file');
    assert.deepEqual(snapshot(), before);
  });

  it('runs no excluded item and names none among the finished', async () => {
    await a.authoring.live.ensure(broken());
    await a.authoring.live.ensure(example());
    const item = (uri: vscode.Uri): vscode.TestItem => a.authoring.tests.controller.items.get(uri.toString())!;
    const finished: string[] = [];
    const sub = a.authoring.tests.onDidFinish((uris) => finished.push(...uris.map(String)));
    const request = new vscode.TestRunRequest([item(broken()), item(example())], [item(example())]);
    const results = await a.authoring.tests.runRequest(request).finally(() => sub.dispose());
    // The broken spec fails on its own text, without a sandbox; the excluded example is not touched.
    assert.deepEqual([...results], [[broken().toString(), 'failed']]);
    assert.deepEqual(finished, [broken().toString()]);
    assert.equal(a.authoring.tests.lastOutcome(example()), undefined);
  });

  it('disposes the cancellation source it makes for a run given no token', async () => {
    // The API object the extension reads `vscode` from, not this bundle's namespace wrapper of it.
    const host = require('vscode') as typeof vscode;
    const made: { disposed: boolean }[] = [];
    class CountingSource extends host.CancellationTokenSource {
      disposed = false;
      constructor() {
        super();
        made.push(this);
      }
      override dispose(): void {
        this.disposed = true;
        super.dispose();
      }
    }
    const restore = replaceProperty(host, 'CancellationTokenSource', CountingSource);
    try {
      const results = await a.authoring.tests.run([broken()]);
      assert.equal(results.get(broken().toString()), 'failed');
    } finally {
      restore();
    }
    assert.ok(made.length >= 1, 'the run made a cancellation source');
    assert.deepEqual(made.map((s) => s.disposed), made.map(() => true), 'every source it made was disposed');
  });
});

/** The list, cancelling `source` once the refresh asks for the entry after the first: it reaches the first only. */
function cancelAfterFirst<T>(list: T[], source: vscode.CancellationTokenSource): T[] {
  const out = [...list];
  (out as { [Symbol.iterator]: () => Iterator<T> })[Symbol.iterator] = function* () {
    for (const [i, x] of list.entries()) {
      if (i === 1) source.cancel();
      yield x;
    }
  };
  return out;
}

describe('authoring: Testing API', () => {
  before(async function () {
    this.timeout(60_000);
    await needService(this, 'docker', async () => {
      const r = spawnSync('docker', ['image', 'inspect', 'coevolve/busybox:latest'], { encoding: 'utf8' });
      return r.status === 0 ? undefined : `no coevolve/busybox image (${(r.stderr || r.error?.message || '').trim()})`;
    });
    // The default backend setting ("auto") picks Docker when it answers and has the image.
  });

  it('lists every environment spec as a test item', async () => {
    const a = await api();
    const good = await writeFile('tests/good.env.yaml', environmentScaffold('good-task'));
    await a.authoring.live.ensure(good);
    const ids: string[] = [];
    a.authoring.tests.controller.items.forEach((i) => ids.push(i.id));
    assert.ok(ids.includes(good.toString()), `the new spec is a test item: ${ids.join(', ')}`);
  });

  it('passes a good spec and fails one whose oracle fails, in a sandbox', async function () {
    this.timeout(120_000);
    const a = await api();
    const good = await writeFile('tests/good.env.yaml', environmentScaffold('good-task'));
    const bad = await writeFile('tests/bad-oracle.env.yaml', environmentScaffold('bad-oracle').replace('wc -l < reports/tuesday.txt', 'wc -l < reports/monday.txt'));
    const results = await a.authoring.tests.run([good, bad]);
    assert.equal(results.get(good.toString()), 'passed');
    assert.equal(results.get(bad.toString()), 'failed');
    assert.equal(a.authoring.tests.lastOutcome(bad), 'failed');
  });

  it('stops when cancelled', async function () {
    this.timeout(60_000);
    const a = await api();
    const good = vscode.Uri.joinPath(folder(), 'tests/good.env.yaml');
    const source = new vscode.CancellationTokenSource();
    source.cancel();
    const results = await a.authoring.tests.run([good], source.token);
    assert.equal(results.get(good.toString()), 'skipped');
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), 'tests'), { recursive: true });
  });
});

describe('authoring: CodeLens, play, evolve and new specs', () => {
  before(async function () {
    this.timeout(60_000);
    await api();
    await needService(this, 'docker', async () => {
      const r = spawnSync('docker', ['image', 'inspect', 'coevolve/busybox:latest'], { encoding: 'utf8' });
      return r.status === 0 ? undefined : `no coevolve/busybox image (${(r.stderr || r.error?.message || '').trim()})`;
    });
  });

  it('New Environment and New User write specs that validate clean, and the Environments view lists them', async () => {
    const a = await api();
    const envUri = await vscode.commands.executeCommand<vscode.Uri>('coevolve.newEnvironment', vscode.Uri.joinPath(folder(), 'lens'), 'Lens Task');
    const userUri = await vscode.commands.executeCommand<vscode.Uri>('coevolve.newUser', vscode.Uri.joinPath(folder(), 'lens'), 'lens-user');
    assert.equal(vscode.workspace.asRelativePath(envUri, false), 'lens/lens-task.env.yaml');
    for (const uri of [envUri, userUri]) {
      await a.authoring.live.ensure(uri);
      assert.equal(a.authoring.live.state(uri), 'valid', `${uri.path} validates clean: ${JSON.stringify(a.authoring.live.problems(uri))}`);
    }
    const groups = a.authoring.environments.getChildren();
    const envGroup = groups.find((g) => g.type === 'kind' && g.kind === 'Environment');
    assert.ok(envGroup, 'an Environments group');
    const files = a.authoring.environments.getChildren(envGroup).map((n) => (n.type === 'spec' ? n.file : ''));
    assert.ok(files.includes(envUri.fsPath), 'the new environment is listed');
    const item = a.authoring.environments.getTreeItem(a.authoring.environments.getChildren(envGroup).find((n) => n.type === 'spec' && n.file === envUri.fsPath)!);
    assert.equal(item.label, 'lens-task');
    assert.equal(item.contextValue, 'coevolve.spec.environment');
  });

  it('shows Validate, Play and Evolve lenses on an environment and Start run on a run config', async () => {
    const envUri = vscode.Uri.joinPath(folder(), 'lens/lens-task.env.yaml');
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', envUri);
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => t.includes('Validate')), titles.join(' | '));
    assert.ok(titles.some((t) => t.includes('Play one rollout')));
    assert.ok(titles.some((t) => t.includes('Evolve a child')));
    assert.equal(lenses[0]!.range.start.line, 5, 'above the first line of the spec, after the header comment');
    const runUri = await writeFile('lens/lens.run.yaml', 'apiVersion: coevolve/v1\nkind: Run\nname: lens\npopulation:\n  environments: [lens-task.env.yaml]\n');
    await vscode.workspace.openTextDocument(runUri);
    const runLenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', runUri);
    assert.deepEqual(runLenses.map((l) => l.command?.command), ['coevolve.startRunFromSpec']);
  });

  it('Play one rollout records a one-off run with the rollout', async function () {
    this.timeout(120_000);
    const envUri = vscode.Uri.joinPath(folder(), 'lens/lens-task.env.yaml');
    const played = await vscode.commands.executeCommand<{ runDir: string; rolloutFile: string; record: { status: string } }>('coevolve.playEnvironment', envUri);
    assert.ok(played, 'the command resolved with the played rollout');
    assert.ok(played.runDir.startsWith(join(folder().fsPath, 'runs')), `under the runs folder: ${played.runDir}`);
    const record = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(played.rolloutFile)))) as { envId: string; steps: unknown[] };
    assert.equal(record.envId, 'lens-task');
    assert.ok(record.steps.length > 0);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Evolve a child writes a harder child beside its parent and opens the diff', async function () {
    this.timeout(60_000);
    const family = findFamily('log-triage')!;
    const parentUri = await writeFile('lens/triage.env.yaml', stringify(family.generate({ level: 1 }, createRng(7))));
    const evolved = await vscode.commands.executeCommand<{ child: vscode.Uri; operator: string }>('coevolve.evolveEnvironment', parentUri);
    assert.ok(evolved, 'a child was made');
    assert.match(evolved.operator, /^harder:/);
    const a = await api();
    await a.authoring.live.ensure(evolved.child);
    assert.equal(a.authoring.live.state(evolved.child), 'valid', JSON.stringify(a.authoring.live.problems(evolved.child)));
    const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff);
    assert.ok(tab, 'a diff editor is open');
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.toString(), parentUri.toString());
    assert.equal(input.modified.toString(), evolved.child.toString());
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), 'lens'), { recursive: true });
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), 'runs'), { recursive: true });
  });
});
