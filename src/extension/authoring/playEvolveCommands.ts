// Commands behind the "Play one rollout" and "Evolve a child" lenses.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { environmentFromText } from './environmentCheck.js';
import { childSpecText, playOneRollout, proposeChild, type PlayedRollout } from './playAndEvolve.js';
import { abortSignalOf, currentText, runRefusal, withSandbox } from './sandboxSession.js';
import { authoringCommands } from './specCodeLens.js';
import { targetUri } from './specRunCommands.js';
import type { RegisterCommand } from '../commandRegistrar.js';
import { builtinCastFor } from '../../cli/run/builtinCast.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';

export interface EvolvedChild {
  parent: vscode.Uri;
  child: vscode.Uri;
  operator: string;
}

async function specOf(uri: vscode.Uri): Promise<EnvironmentSpec> {
  const parsed = environmentFromText(await currentText(uri), uri.fsPath);
  if ('spec' in parsed) return parsed.spec;
  throw new Error(`${vscode.workspace.asRelativePath(uri, false)}: ${parsed.message}; fix it first (the Problems panel lists every problem)`);
}

/** The runs folder of the spec's workspace folder (setting `coevolve.runsFolder`, default "runs"). */
function runsDirFor(uri: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? join(uri.fsPath, '..');
  const setting = vscode.workspace.getConfiguration('coevolve', uri).get<string>('runsFolder') || 'runs';
  return isAbsolute(setting) ? setting : join(folder, setting);
}

export function registerPlayEvolveCommands(register: RegisterCommand, log: vscode.LogOutputChannel): void {
  const fail = (err: unknown): undefined => {
    const message = err instanceof Error ? err.message : String(err);
    log.error(message);
    void vscode.window.showErrorMessage(`Coevolve: ${message}`);
    return undefined;
  };

  register(authoringCommands.play, async (arg?: unknown): Promise<PlayedRollout | undefined> => {
    const uri = targetUri(arg);
    if (!uri) return undefined;
    const refusal = runRefusal();
    if (refusal) return fail(refusal);
    try {
      const spec = await specOf(uri);
      const played = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Coevolve: playing one rollout of ${spec.id} (built-in roles, not an LLM)`, cancellable: true },
        async (_p, token) => {
          const cancel = abortSignalOf(token);
          try {
            return await withSandbox([spec.sandbox.image], log, (backend) => playOneRollout(spec, uri.fsPath, backend, runsDirFor(uri), cancel.signal));
          } finally {
            cancel.dispose();
          }
        },
      );
      const r = played.record;
      log.info(`played ${played.rolloutId} of ${spec.id}: ${r.status}, reward ${r.rewards.total.toFixed(2)} → ${played.rolloutFile}`);
      await openPlayed(played);
      void vscode.window.showInformationMessage(`Coevolve: ${spec.id}: ${r.success ? 'solved' : 'not solved'} (reward ${r.rewards.total.toFixed(2)}, ${r.steps.length} steps). Recorded in ${vscode.workspace.asRelativePath(played.runDir, false)}.`);
      return played;
    } catch (err) {
      return fail(err);
    }
  });

  register(authoringCommands.evolve, async (arg?: unknown): Promise<EvolvedChild | undefined> => {
    const uri = targetUri(arg);
    if (!uri) return undefined;
    const refusal = runRefusal();
    if (refusal) return fail(refusal);
    try {
      const parent = await specOf(uri);
      const designer = builtinCastFor([parent.family]).designer;
      const proposal = await proposeChild(parent, { designer });
      if (!proposal.ok) throw new Error(`the designer made no child (${proposal.operator}): ${proposal.reason}`);
      const child = proposal.child;
      const childUri = vscode.Uri.joinPath(uri, '..', `${child.id}.env.yaml`);
      if (existsSync(childUri.fsPath)) throw new Error(`${vscode.workspace.asRelativePath(childUri, false)} already exists; delete or rename it to evolve again`);
      await vscode.workspace.fs.writeFile(childUri, new TextEncoder().encode(childSpecText(child, uri.fsPath, designer.label)));
      const title = `${parent.id} ↔ ${child.id} (${proposal.operator})`;
      await vscode.commands.executeCommand('vscode.diff', uri, childUri, title, { preview: false, viewColumn: vscode.ViewColumn.Beside });
      log.info(`evolved ${child.id} from ${parent.id} by ${proposal.operator}`);
      return { parent: uri, child: childUri, operator: proposal.operator };
    } catch (err) {
      return fail(err);
    }
  });
}

/** The rollout viewer when the Runs side has registered it, else the rollout's JSON file. */
async function openPlayed(played: PlayedRollout): Promise<void> {
  const commands = await vscode.commands.getCommands(true);
  if (commands.includes('coevolve.openRollout')) {
    try {
      // The same shape as a rollout node of the Runs tree, which is what the viewer command takes.
      await vscode.commands.executeCommand('coevolve.openRollout', { kind: 'rollout', runDir: played.runDir, rolloutId: played.rolloutId, generation: played.record.generation, pairId: played.record.pairId });
      return;
    } catch {
      // Fall back to the file below.
    }
  }
  await vscode.window.showTextDocument(vscode.Uri.file(played.rolloutFile), { preview: false });
}
