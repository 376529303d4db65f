import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { parse } from 'yaml';
import { runLayout } from '../../store/layout.js';
import { isRunAlive } from '../../store/runReader.js';
import type { RunRegistry } from '../../viewdata/runRegistry.js';
import type { RunTreeNode } from '../runs/runTreeModel.js';
import { readSettings } from '../settings.js';
import { startCli, type CliRun } from './cliProcess.js';
import { generationLabel } from '../../webview/names.js';

export const apiKeySecret = (endpoint: string): string => `coevolve.apiKey.${endpoint}`;
const allEndpoints = '*';

export interface RunCommandDeps {
  context: vscode.ExtensionContext;
  registry: RunRegistry;
  log: vscode.LogOutputChannel;
  pickRun(placeHolder: string): Promise<string | undefined>;
}

/**
 * Starting, stopping and resuming runs, re-running one rollout, and API keys. Runs are child processes of the CLI
 * (`coevolve run|resume|rerun`), so a crash of a sandbox never takes the editor with it. Running executes
 * workspace code: every command here refuses in an untrusted or virtual workspace (package.json hides them too).
 */
export class RunCommands {
  /** Child processes started here, by run directory. */
  readonly running = new Map<string, CliRun>();

  constructor(private readonly deps: RunCommandDeps) {}

  private canRun(): boolean {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Coevolve: starting runs executes code from this workspace; trust the workspace first (viewing runs works without trust).');
      return false;
    }
    if ((vscode.workspace.workspaceFolders ?? []).some((f) => f.uri.scheme !== 'file')) {
      void vscode.window.showWarningMessage('Coevolve: this is a virtual workspace; runs need a local disk and a container engine, so they can only be viewed here.');
      return false;
    }
    return true;
  }

  /** Environment for a child run: settings as CLI flags elsewhere; the API keys from SecretStorage only here. */
  private async childEnv(): Promise<Record<string, string>> {
    const env: Record<string, string> = {};
    const all = await this.deps.context.secrets.get(apiKeySecret(allEndpoints));
    if (all) env['COEVOLVE_API_KEY'] = all;
    const names = this.deps.context.globalState.get<string[]>('coevolve.apiKeyEndpoints', []);
    for (const name of names) {
      const key = await this.deps.context.secrets.get(apiKeySecret(name));
      if (key) env[`COEVOLVE_API_KEY_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = key;
    }
    const s = readSettings();
    if (s.dockerHost) env['DOCKER_HOST'] = s.dockerHost;
    return env;
  }

  private flags(): string[] {
    const s = readSettings();
    const flags: string[] = [];
    if (s.llmBaseUrl && s.llmModel) flags.push('--llm', s.llmBaseUrl, '--model', s.llmModel);
    if (s.concurrency > 0) flags.push('--concurrency', String(s.concurrency));
    if (s.sandboxBackend !== 'config') flags.push('--backend', s.sandboxBackend);
    flags.push('--cache', s.cacheMode);
    return flags;
  }

  async start(file?: vscode.Uri): Promise<string | undefined> {
    if (!this.canRun()) return undefined;
    const target = file ?? (await this.pickRunConfig());
    if (!target) return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(target) ?? vscode.workspace.workspaceFolders?.[0];
    const cwd = folder?.uri.fsPath ?? dirname(target.fsPath);
    const out = readSettings(folder?.uri).runsFolder;
    const args = ['run', target.fsPath, '--out', out, ...this.flags()];
    return this.track(`Coevolve: running ${target.path.split('/').pop()}`, args, cwd);
  }

  async resume(node?: RunTreeNode): Promise<string | undefined> {
    if (!this.canRun()) return undefined;
    const runDir = node?.runDir ?? (await this.deps.pickRun('Run to resume'));
    if (!runDir) return undefined;
    if (this.running.has(runDir) || isRunAlive(runDir)) {
      void vscode.window.showInformationMessage('Coevolve: this run is still going; stop it before resuming.');
      return runDir;
    }
    const folder = vscode.workspace.workspaceFolders?.find((f) => runDir.startsWith(f.uri.fsPath));
    const s = readSettings();
    const args = ['resume', runDir, '--cache', s.cacheMode, ...(s.sandboxBackend !== 'config' ? ['--backend', s.sandboxBackend] : [])];
    return this.track(`Coevolve: resuming ${runDir.split(/[\\/]/).pop()}`, args, folder?.uri.fsPath ?? dirname(runDir), runDir);
  }

  /**
   * Runs the CLI under a cancellable progress notification. Cancel = SIGINT, which the CLI turns into a clean
   * stop (sandboxes removed, `run.finished: stopped` written) that `resume` continues.
   */
  private track(title: string, args: string[], cwd: string, knownRunDir?: string): Promise<string | undefined> {
    return new Promise((resolveStarted) => {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
        const run = startCli(this.deps.context.extensionUri, args, cwd, await this.childEnv(), this.deps.log);
        token.onCancellationRequested(() => run.child.kill('SIGINT'));
        const runDir = knownRunDir ?? (await run.runDir);
        resolveStarted(runDir);
        if (!runDir) {
          const code = await run.exit;
          void this.reportFailure(args[0] ?? 'run', code, run.output());
          return;
        }
        this.running.set(runDir, run);
        this.deps.registry.refresh(runDir);
        const planned = (): string => {
          try {
            const live = this.deps.registry.get(runDir);
            const g = live.run.generations.at(-1);
            const total = live.manifest.config.generations;
            return g ? `${generationLabel(g.index, total)} · ${g.rollouts.length} rollouts done${g.inFlight.length ? `, ${g.inFlight.length} running` : ''}` : 'starting…';
          } catch {
            return 'starting…';
          }
        };
        progress.report({ message: planned() });
        const sub = this.deps.registry.onDidChange((dir) => {
          if (dir === runDir) progress.report({ message: planned() });
        });
        const code = await run.exit;
        sub.dispose();
        this.running.delete(runDir);
        this.deps.registry.refresh(runDir);
        if (code === 0) void vscode.window.showInformationMessage(`Coevolve: run finished (${runDir.split(/[\\/]/).pop()}).`, 'Open Dashboard').then((a) => a && vscode.commands.executeCommand('coevolve.openDashboard', runDir));
        else if (code === 130) void vscode.window.showInformationMessage('Coevolve: run stopped cleanly; "Resume Run" continues it.');
        else void this.reportFailure(args[0] ?? 'run', code, run.output());
      });
    });
  }

  private async reportFailure(what: string, code: number | null, output: string): Promise<void> {
    const last = output.trim().split('\n').filter((l) => !l.startsWith('warning')).slice(-3).join(' ');
    const action = await vscode.window.showErrorMessage(`Coevolve ${what} failed (exit ${code}): ${last || 'no output'}`, 'Show Log');
    if (action) this.deps.log.show(true);
  }

  /** Stops a run started here (SIGINT to the child) or by a CLI elsewhere (SIGINT to the pid in its lock file). */
  async stop(node?: RunTreeNode): Promise<boolean> {
    const runDir = node?.runDir ?? (await this.deps.pickRun('Run to stop'));
    if (!runDir) return false;
    const child = this.running.get(runDir);
    if (child) {
      child.child.kill('SIGINT');
      return true;
    }
    try {
      const pid = Number(readFileSync(runLayout.lock(runDir), 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && isRunAlive(runDir)) {
        process.kill(pid, 'SIGINT');
        return true;
      }
    } catch {
      // no lock: not running
    }
    void vscode.window.showInformationMessage('Coevolve: this run is not running.');
    return false;
  }

  /** `coevolve rerun`: plays the rollout again from the recorded config; shows the two outcomes and opens the result. */
  async rerun(ref: { runDir: string; rolloutId: string }): Promise<string | undefined> {
    if (!this.canRun()) return undefined;
    const s = readSettings();
    const args = ['rerun', ref.runDir, ref.rolloutId, '--json', '--cache', s.cacheMode, ...(s.sandboxBackend !== 'config' ? ['--backend', s.sandboxBackend] : [])];
    const folder = vscode.workspace.workspaceFolders?.find((f) => ref.runDir.startsWith(f.uri.fsPath));
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Coevolve: re-running ${ref.rolloutId}`, cancellable: true }, async (_p, token) => {
      const run = startCli(this.deps.context.extensionUri, args, folder?.uri.fsPath ?? dirname(ref.runDir), await this.childEnv(), this.deps.log);
      token.onCancellationRequested(() => run.child.kill('SIGINT'));
      const code = await run.exit;
      const json = /\{[\s\S]*\}\s*$/.exec(run.output())?.[0];
      if (code !== 0 || !json) {
        void this.reportFailure('rerun', code, run.output());
        return undefined;
      }
      const result = JSON.parse(json) as { file: string; original: { success: boolean; reward: number }; rerun: { success: boolean; reward: number } };
      const verdict = (x: { success: boolean; reward: number }): string => `${x.success ? 'passed' : 'failed'} (reward ${x.reward.toFixed(2)})`;
      void vscode.window.showInformationMessage(`Coevolve: ${ref.rolloutId} recorded ${verdict(result.original)}, re-run ${verdict(result.rerun)}.`, 'Open Result').then((a) => a && vscode.window.showTextDocument(vscode.Uri.file(result.file)));
      return result.file;
    });
  }

  /** Stores an endpoint's key in SecretStorage; runs get it through COEVOLVE_API_KEY[_<ENDPOINT>] only. */
  async setApiKey(endpointArg?: string, keyArg?: string): Promise<boolean> {
    const endpoint = endpointArg ?? (await vscode.window.showInputBox({
      title: 'Coevolve: Set API Key',
      prompt: 'Endpoint name from the run config (`endpoints[].name`), or * for every endpoint',
      value: allEndpoints,
      validateInput: (v) => (v === allEndpoints || /^[a-z0-9][a-z0-9._-]*$/.test(v) ? undefined : 'an endpoint name (lowercase letters, digits, . _ -) or *'),
    }));
    if (!endpoint) return false;
    const key = keyArg ?? (await vscode.window.showInputBox({ title: `API key for ${endpoint === allEndpoints ? 'every endpoint' : endpoint}`, password: true, ignoreFocusOut: true, prompt: 'Stored in the editor\'s secret storage; never written to settings or run files.' }));
    if (!key) return false;
    await this.deps.context.secrets.store(apiKeySecret(endpoint), key);
    if (endpoint !== allEndpoints) {
      const names = new Set(this.deps.context.globalState.get<string[]>('coevolve.apiKeyEndpoints', []));
      names.add(endpoint);
      await this.deps.context.globalState.update('coevolve.apiKeyEndpoints', [...names]);
    }
    void vscode.window.showInformationMessage(`Coevolve: API key stored for ${endpoint === allEndpoints ? 'every endpoint' : `endpoint "${endpoint}"`}.`);
    return true;
  }

  async clearApiKeys(): Promise<void> {
    const names = this.deps.context.globalState.get<string[]>('coevolve.apiKeyEndpoints', []);
    for (const n of [allEndpoints, ...names]) await this.deps.context.secrets.delete(apiKeySecret(n));
    await this.deps.context.globalState.update('coevolve.apiKeyEndpoints', []);
    void vscode.window.showInformationMessage('Coevolve: stored API keys removed.');
  }

  /**
   * The run configs of the workspace, each with what it would run; with none, the ways to get one (run the demo,
   * write the examples, a new config) instead of an empty list.
   */
  private async pickRunConfig(): Promise<vscode.Uri | undefined> {
    const files = await vscode.workspace.findFiles('**/*.run.{yaml,yml}', '**/node_modules/**', 200);
    type Item = vscode.QuickPickItem & { uri?: vscode.Uri; command?: string };
    const items: Item[] = files.map((f) => ({ label: vscode.workspace.asRelativePath(f), description: describeRunConfig(f.fsPath), uri: f }));
    if (items.length === 1) return items[0]?.uri;
    const none = items.length === 0;
    const extras: Item[] = [
      { label: '$(beaker) Run the demo', description: 'five generations on the built-in tasks and users, offline, a few minutes', command: 'coevolve.runDemo' },
      { label: '$(new-file) New run config…', description: 'a commented *.run.yaml you can edit', command: 'coevolve.newRunConfig' },
      { label: '$(files) Set up the workspace with the examples', description: 'writes environments/ with example specs', command: 'coevolve.init' },
    ];
    const pick = await vscode.window.showQuickPick<Item>([...items, ...(none ? [] : [{ label: '', kind: vscode.QuickPickItemKind.Separator }]), ...extras], {
      title: 'Coevolve: Start Run',
      placeHolder: none ? 'This workspace has no run config (*.run.yaml) yet: run the demo, or create one' : 'Run config to start',
      matchOnDescription: true,
    });
    if (pick?.command) {
      void vscode.commands.executeCommand(pick.command);
      return undefined;
    }
    return pick?.uri;
  }


}

/** "demo · 5 generations · built-in roles" for the picker, from the file's own keys (no validation here). */
function describeRunConfig(path: string): string {
  try {
    const doc = parse(readFileSync(path, 'utf8')) as { name?: unknown; generations?: unknown; roles?: Record<string, { kind?: unknown }> } | null;
    const kinds = new Set(Object.values(doc?.roles ?? {}).map((r) => String(r?.kind ?? 'builtin')));
    return [typeof doc?.name === 'string' ? doc.name : '', typeof doc?.generations === 'number' ? `${doc.generations} generations` : '', kinds.has('llm') ? 'uses a model' : 'built-in roles, offline'].filter(Boolean).join(' · ');
  } catch {
    return 'cannot be read';
  }
}
