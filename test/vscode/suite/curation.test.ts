import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CoevolveApi } from '../../../src/extension/api.js';
import { noFilters } from '../../../src/viewdata/datasetItems.js';
import { openRun } from '../../../src/store/runReader.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { replaceProperty } from '../../support/replaceProperty.js';

async function api(): Promise<CoevolveApi> {
  const ext = vscode.extensions.getExtension<CoevolveApi>('coevolve.coevolve');
  assert.ok(ext);
  return ext.activate();
}

function folder(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f);
  return f.uri.fsPath;
}

function curationLines(runDir: string): { action: string; target: { kind: string; id: string }; label?: string; text?: string }[] {
  const file = join(runDir, 'curation.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('datasets: curation commands, Dataset view and export', () => {
  let runDir: string;
  let rollout: { id: string; generation: number; envId: string; pairId: string };
  let other: { envId: string; pairId: string; generation: number };

  before(async function () {
    this.timeout(30_000);
    await api();
    runDir = await makeRun(join(folder(), 'runs'), { name: 'curation', generations: 2, pairsPerGeneration: 2, k: 2, hintPlays: 0 });
    const all = [...openRun(runDir).rollouts.values()];
    const r = all[0]!;
    rollout = { id: r.id, generation: r.generation, envId: r.envId, pairId: r.pairId };
    const o = all.find((x) => x.envId !== r.envId)!;
    other = { envId: o.envId, pairId: o.pairId, generation: o.generation };
  });

  after(async () => {
    await vscode.commands.executeCommand('coevolve.dataset.clearFilters');
    await vscode.workspace.fs.delete(vscode.Uri.file(join(folder(), 'runs')), { recursive: true });
    await vscode.workspace.fs.delete(vscode.Uri.file(join(folder(), 'datasets')), { recursive: true, useTrash: false }).then(undefined, () => undefined);
  });

  it('Accept on a Runs tree rollout node appends to curation.jsonl', async () => {
    await vscode.commands.executeCommand('coevolve.curation.accept', { kind: 'rollout', runDir, rolloutId: rollout.id, generation: rollout.generation, contextValue: 'coevolve.rollout' });
    const lines = curationLines(runDir);
    assert.equal(lines.length, 1);
    assert.deepEqual([lines[0]!.action, lines[0]!.target], ['accept', { kind: 'rollout', id: rollout.id }]);
  });

  it('Label and Comment take (runDir, rolloutId, text), as the rollout viewer calls them', async () => {
    await vscode.commands.executeCommand('coevolve.curation.label', runDir, rollout.id, 'clarification');
    await vscode.commands.executeCommand('coevolve.curation.comment', runDir, rollout.id, 'asked the right question first');
    const lines = curationLines(runDir);
    assert.deepEqual(lines.slice(1).map((l) => [l.action, l.label ?? l.text]), [['label', 'clarification'], ['comment', 'asked the right question first']]);
    const state = await vscode.commands.executeCommand<{ verdict: string; labels: string[] }>('coevolve.curation.state', runDir, rollout.id);
    assert.equal(state.verdict, 'accepted');
    assert.deepEqual(state.labels, ['clarification']);
  });

  it('Reject on a pair node curates its environment; nothing is ever rewritten', async () => {
    await vscode.commands.executeCommand('coevolve.curation.reject', { kind: 'pair', runDir, ...other });
    const lines = curationLines(runDir);
    assert.equal(lines.length, 4, 'append-only: one line per decision');
    assert.deepEqual(lines[3]!.target, { kind: 'environment', id: other.envId });
  });

  it('the Dataset view lists the curated items and filters them', async () => {
    const a = await api();
    a.datasets.provider.invalidate();
    const runs = a.datasets.provider.getChildren();
    const node = runs.find((n) => n.type === 'run' && n.runDir === runDir);
    assert.ok(node && node.type === 'run', 'the run is listed');
    assert.equal(node.items.length, 2);
    const shown = await vscode.commands.executeCommand<number>('coevolve.dataset.filter', { ...noFilters, verdict: 'accepted' });
    assert.equal(shown, 1);
    const children = a.datasets.provider.getChildren(a.datasets.provider.getChildren().find((n) => n.type === 'run' && n.runDir === runDir));
    const item = a.datasets.provider.getTreeItem(children[0]!);
    assert.equal(item.label, rollout.id);
    assert.match(String(item.description), /^accepted · reward/);
    assert.equal(item.contextValue, 'coevolve.dataset.rollout');
  });

  it('Export Dataset runs coevolve export with the view\'s filters', async function () {
    this.timeout(60_000);
    const out = join(folder(), 'datasets', 'curation-chat');
    const result = await vscode.commands.executeCommand<{ code: number; report?: { exported: number } }>('coevolve.exportDataset', runDir, 'chat-jsonl', out);
    assert.equal(result.code, 0, JSON.stringify(result));
    assert.equal(result.report?.exported, 1, 'only the accepted rollout');
    const files = readdirSync(out, { recursive: true }).map(String);
    assert.ok(files.includes('README.md'), 'a dataset card');
    assert.ok(files.some((f) => f.endsWith('.jsonl')), `a JSONL file among ${files.join(', ')}`);
  });
  it('Accept and Reject from the palette act on the rollout the focused viewer shows', async function () {
    this.timeout(30_000);
    const { editor } = await api();
    const target = { runDir, generation: other.generation, rolloutId: [...openRun(runDir).rollouts.values()].find((x) => x.envId === other.envId)!.id };
    const panel = editor.rolloutPanels.show(target);
    const deadline = Date.now() + 10_000;
    while (!panel.active && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(panel.active, 'the viewer has the focus');
    const before = curationLines(runDir).length;
    await vscode.commands.executeCommand('coevolve.curation.reject');
    const lines = curationLines(runDir);
    assert.equal(lines.length, before + 1, 'one entry appended (no "choose a rollout" warning)');
    assert.deepEqual([lines.at(-1)!.action, lines.at(-1)!.target], ['reject', { kind: 'rollout', id: target.rolloutId }]);
    const view = (await editor.rolloutPanels.answer(target, { kind: 'request', id: 1, method: 'rollout/get', params: target })) as { result: { curation: { verdict?: string } } };
    assert.equal(view.result.curation.verdict, 'rejected', 'the viewer is told the new state');
    await vscode.commands.executeCommand('coevolve.curation.clear');
    panel.dispose();
  });

  it('Label and Comment from the palette record the rollout shown when invoked, though the viewer changed during the prompt', async function () {
    this.timeout(30_000);
    const { editor } = await api();
    const [first, second] = [...openRun(runDir).rollouts.values()].map((r) => ({ runDir, generation: r.generation, rolloutId: r.id }));
    const focus = async (ref: typeof first): Promise<vscode.WebviewPanel> => {
      const panel = editor.rolloutPanels.show(ref!);
      const deadline = Date.now() + 10_000;
      while (!panel.active && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(panel.active, `the viewer of ${ref!.rolloutId} has the focus`);
      return panel;
    };
    const panels = [await focus(first)];
    // Each prompt moves the focus to another rollout's viewer before it is answered. The label prompt is an input
    // box or, when labels were used before, a quick pick: both give the next answer.
    const answers = ['noted while the other viewer had the focus', 'picked-while-elsewhere'];
    const answer = async (): Promise<string> => {
      panels.push(await focus(second));
      return answers.shift()!;
    };
    const restoreInput = replaceProperty(vscode.window, 'showInputBox', answer as typeof vscode.window.showInputBox);
    const restorePick = replaceProperty(vscode.window, 'createQuickPick', (() => fakeQuickPick(answer)) as typeof vscode.window.createQuickPick);
    try {
      await vscode.commands.executeCommand('coevolve.curation.comment');
      panels.push(await focus(first));
      await vscode.commands.executeCommand('coevolve.curation.label');
    } finally {
      restoreInput();
      restorePick();
      for (const p of new Set(panels)) p.dispose();
    }
    const [comment, label] = curationLines(runDir).slice(-2);
    assert.deepEqual([comment!.action, comment!.target, comment!.text], ['comment', { kind: 'rollout', id: first!.rolloutId }, 'noted while the other viewer had the focus']);
    assert.deepEqual([label!.action, label!.target, label!.label], ['label', { kind: 'rollout', id: first!.rolloutId }, 'picked-while-elsewhere']);
  });

});

/**
 * A quick pick that, once shown, runs `answer` and accepts what it returns as typed text (the label prompt offers the
 * labels used before; a typed one is taken as is).
 */
function fakeQuickPick(answer: () => Promise<string>): vscode.QuickPick<vscode.QuickPickItem> {
  const accepted = new vscode.EventEmitter<void>();
  const hidden = new vscode.EventEmitter<void>();
  const pick = {
    title: '', placeholder: '', items: [] as vscode.QuickPickItem[], selectedItems: [] as vscode.QuickPickItem[], value: '',
    onDidAccept: accepted.event,
    onDidHide: hidden.event,
    show: () => void answer().then((text) => {
      pick.value = text;
      accepted.fire();
    }),
    hide: () => hidden.fire(),
    dispose: () => {
      accepted.dispose();
      hidden.dispose();
    },
  };
  return pick as unknown as vscode.QuickPick<vscode.QuickPickItem>;
}
