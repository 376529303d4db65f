import { appendCuration, curationKey, readCuration } from '../store/curation.js';
import type { RequestParamsOf, RequestResults } from '../webview/protocol.js';
import type { RunResolver } from './runRegistry.js';

/**
 * Appends one curation decision to a run and returns the target's folded state. The target must be something the
 * run has (a rollout of its index or one of its environment versions), so a message cannot curate an invented id.
 */
export async function applyCuration(runs: RunResolver, p: RequestParamsOf<'curation/apply'>): Promise<RequestResults['curation/apply']> {
  const live = runs.get(p.runDir);
  const known = p.target.kind === 'rollout' ? live.run.rollouts.has(p.target.id) : live.run.specs.get(p.target.id)?.kind === 'environment';
  if (!known) throw new Error(`${p.target.kind} ${p.target.id} is not in run ${live.manifest.name}`);
  await appendCuration(live.dir, [{
    at: new Date().toISOString(), target: p.target, action: p.action,
    ...(p.label ? { label: p.label } : {}), ...(p.text ? { text: p.text } : {}), author: 'coevolve view',
  }]);
  const s = readCuration(live.dir).states.get(curationKey(p.target));
  return { target: p.target, ...(s?.verdict ? { verdict: s.verdict } : {}), labels: s?.labels ?? [], comments: s?.comments.length ?? 0 };
}
