import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CoevolveApi } from '../../../src/extension/api.js';
import type { SpecValidationSummary } from '../../../src/extension/specs/validateWorkspaceSpecs.js';

function workspaceFile(relativePath: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return vscode.Uri.joinPath(folder.uri, relativePath);
}

async function lineOf(uri: vscode.Uri, needle: string): Promise<number> {
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const index = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(index >= 0, `"${needle}" is in ${uri.path}`);
  return index;
}

describe('Coevolve: Validate Workspace Specs', () => {
  let summary: SpecValidationSummary;

  before(async () => {
    await vscode.extensions.getExtension<CoevolveApi>('coevolve.coevolve')?.activate();
    summary = await vscode.commands.executeCommand<SpecValidationSummary>('coevolve.validateWorkspace');
  });

  it('returns a summary counting the broken spec', () => {
    assert.ok(summary.files >= 1, `found spec files (${JSON.stringify(summary)})`);
    assert.ok(summary.errors >= 1, 'the broken spec has errors');
    assert.ok(summary.filesWithProblems >= 1);
  });

  it('publishes an error on the offending node of the broken spec', async () => {
    const uri = workspaceFile('broken.env.yaml');
    const line = await lineOf(uri, 'memoryMb: lots');
    const diagnostics = vscode.languages.getDiagnostics(uri);
    const onLine = diagnostics.filter((d) => d.range.start.line === line);
    assert.ok(onLine.length > 0, `a diagnostic on line ${line + 1}; got ${JSON.stringify(diagnostics.map((d) => [d.range.start.line + 1, d.message]))}`);
    const d = onLine[0]!;
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(d.source, 'coevolve');
    assert.ok(d.range.start.character >= 4, 'the range starts at the node, not at the line start');
    assert.ok(d.message.length > 0);
  });

  it('leaves the example environments clean', async () => {
    const examples = await vscode.workspace.findFiles('examples/*.env.yaml');
    assert.ok(examples.length > 0, 'the runner copied the example environments into the workspace');
    for (const uri of examples) {
      const errors = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
      assert.deepEqual(errors.map((d) => `${d.range.start.line + 1}: ${d.message}`), [], `${uri.path} validates clean`);
    }
  });

  it('clears diagnostics of a file that was fixed', async () => {
    const uri = workspaceFile('fixed-later.env.yaml');
    const broken = new TextEncoder().encode('apiVersion: coevolve/v1\nkind: Environment\nid: [not, an, id]\n');
    await vscode.workspace.fs.writeFile(uri, broken);
    await vscode.commands.executeCommand('coevolve.validateWorkspace');
    assert.ok(vscode.languages.getDiagnostics(uri).length > 0, 'the new broken file is reported');
    await vscode.workspace.fs.delete(uri);
    await vscode.commands.executeCommand('coevolve.validateWorkspace');
    assert.equal(vscode.languages.getDiagnostics(uri).length, 0, 'its diagnostics are gone once it is deleted');
  });
});
