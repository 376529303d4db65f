import * as vscode from 'vscode';
import type { RunEntry, RunRegistry } from '../../viewdata/runRegistry.js';
import type { RolloutRef } from '../../webview/protocol.js';

/** A quick pick of the registry's readable runs; the only one without asking; none, saying why, when there is none. */
export async function pickLiveRun(registry: RunRegistry, placeHolder: string): Promise<string | undefined> {
  const runs = registry.list().filter((e) => e.live);
  if (runs.length === 0) {
    // An empty picker would only leave the user wondering where the runs are.
    void vscode.window.showInformationMessage('Coevolve: there is no run yet in the runs folder (setting coevolve.runsFolder). Start Run… or Run the Demo makes one.');
    return undefined;
  }
  if (runs.length === 1) return runs[0]?.dir;
  return pickOf(runs, placeHolder);
}

/** The run to compare `runDir` with, picked from the other readable runs; none, saying why, when there is no other. */
export async function pickSecondRun(registry: RunRegistry, runDir: string): Promise<string | undefined> {
  const runs = registry.list().filter((e) => e.live);
  const others = runs.filter((e) => e.dir !== runDir);
  if (others.length === 0) {
    const name = runs.find((e) => e.dir === runDir)?.live?.manifest.name ?? runDir;
    void vscode.window.showInformationMessage(`Coevolve: comparing needs a second run, and ${name} is the only run there is. Start or resume another run to compare it with.`);
    return undefined;
  }
  return pickOf(others, 'Run to compare with');
}

/** A quick pick of runs by name, with their status, start and folder. */
async function pickOf(runs: RunEntry[], placeHolder: string): Promise<string | undefined> {
  const pick = await vscode.window.showQuickPick(runs.map((e) => ({ label: e.live?.manifest.name ?? e.dir, description: `${e.live?.run.status} · ${e.live?.manifest.startedAt.slice(0, 16).replace('T', ' ')}`, detail: e.dir, dir: e.dir })), { placeHolder });
  return pick?.dir;
}

/** A run (through `pickRun`), then one of its rollouts. */
export async function pickRolloutOf(registry: RunRegistry, pickRun: (placeHolder: string) => Promise<string | undefined>): Promise<RolloutRef | undefined> {
  const runDir = await pickRun('Run of the rollout');
  if (!runDir) return undefined;
  const rs = [...registry.get(runDir).run.rollouts.values()];
  const pick = await vscode.window.showQuickPick(rs.map((r) => ({ label: r.id, description: `${r.success ? 'passed' : 'failed'} · reward ${r.reward.toFixed(2)} · ${r.envId} × ${r.userId}`, r })), { placeHolder: 'Rollout to open', matchOnDescription: true });
  return pick ? { runDir, generation: pick.r.generation, rolloutId: pick.r.id } : undefined;
}
