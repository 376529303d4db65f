import * as vscode from 'vscode';
import type { RunRegistry } from '../../viewdata/runRegistry.js';
import type { RolloutRef } from '../../webview/protocol.js';

/** A quick pick of the registry's readable runs; the only one without asking. */
export async function pickLiveRun(registry: RunRegistry, placeHolder: string): Promise<string | undefined> {
  const runs = registry.list().filter((e) => e.live);
  if (runs.length === 1) return runs[0]?.dir;
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
