// The searchable text of one rollout file, read for the transcript index with a lighter check than the run reader's:
// the full rollout schema (zod over every field of every step) was most of the index's build time, and search uses
// only the step fields below. The file is read the same safe way (inside the run directory, bounded, regular, UTF-8)
// and must hold the id and generation it is filed under; each field search reads is type-checked before use, so a
// hostile file is skipped, never a crash. Opening a hit still goes through readRollout, which checks everything.
import { readRunText, runFileExists, runFileLimits } from '../store/runFiles.js';
import { runRecordRelPath } from '../store/runPaths.js';
import { stepText } from './stepText.js';

/** One step as search sees it. */
export interface TranscriptStep {
  id: number;
  source: string;
  /** Lowercased, as stepText makes it. */
  text: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A step's fields that stepText reads, checked as the rollout schema checks them (src/store/records.ts: a message,
 * tool calls with an arguments object, observation results with content); undefined when one has the wrong type.
 */
function checkedStep(v: unknown): TranscriptStep | undefined {
  if (!isObject(v) || !Number.isInteger(v['step_id']) || typeof v['source'] !== 'string' || typeof v['message'] !== 'string') return undefined;
  const calls = v['tool_calls'];
  if (calls !== undefined && (!Array.isArray(calls) || !calls.every((c) => isObject(c) && isObject(c['arguments'])))) return undefined;
  const obs = v['observation'];
  if (obs !== undefined && (!isObject(obs) || !Array.isArray(obs['results']) || !obs['results'].every((r) => isObject(r) && typeof r['content'] === 'string'))) return undefined;
  const extra = v['extra'];
  if (extra !== undefined && !isObject(extra)) return undefined;
  // stepText reads command.stderr and extra.error whatever they hold (as the viewer's own search does).
  return { id: v['step_id'] as number, source: v['source'] as string, text: stepText(v as unknown as Parameters<typeof stepText>[0]) };
}

/**
 * The steps of a rollout file; 'missing' when it is not written yet (asked again later), 'refused' when it cannot
 * be read or is not the rollout it is filed as (search then skips it, as the viewer would refuse it).
 */
export function readTranscript(dir: string, ref: { generation: number; id: string }): TranscriptStep[] | 'missing' | 'refused' {
  const rel = runRecordRelPath({ kind: 'rollout', generation: ref.generation, id: ref.id });
  let raw: unknown;
  try {
    if (!runFileExists(dir, rel)) return 'missing';
    raw = JSON.parse(readRunText(dir, rel, runFileLimits.rollout));
  } catch {
    return 'refused';
  }
  if (!isObject(raw) || raw['id'] !== ref.id || raw['generation'] !== ref.generation || !Array.isArray(raw['steps'])) return 'refused';
  const steps: TranscriptStep[] = [];
  try {
    for (const s of raw['steps'] as unknown[]) {
      const step = checkedStep(s);
      if (!step) return 'refused';
      steps.push(step);
    }
  } catch {
    return 'refused'; // arguments nested too deep for JSON.stringify, say
  }
  return steps;
}
