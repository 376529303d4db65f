import type { RunEvent, RunEventBody, RunRecorder } from '../ports/runStore.js';

/** Appends an event to the run's log, once: see `createEmitOnce`. */
export type EmitOnce = (body: RunEventBody) => Promise<void>;

/**
 * An appender that skips a fact the run directory already holds. A resumed run re-derives the generation it was
 * killed in, and that must not append the same child, retirement or agent update twice.
 */
export function createEmitOnce(recorder: RunRecorder, history: readonly RunEvent[]): EmitOnce {
  const seen = new Set(history.map(eventKey).filter((k): k is string => k !== undefined));
  return async (body) => {
    const key = eventKey(body);
    if (key !== undefined) {
      if (seen.has(key)) return;
      seen.add(key);
    }
    await recorder.append(body);
  };
}

/** Identity of an event for resume (re-deriving a generation must not append the same fact twice); undefined for events that are never deduplicated. */
export function eventKey(e: RunEventBody): string | undefined {
  switch (e.type) {
    case 'spec.added':
    case 'spec.retired':
      return `${e.type}|${e.kind}|${e.id}`;
    case 'child.rejected':
      return `${e.type}|${e.generation}|${e.id}`;
    case 'pair.added':
      return `${e.type}|${e.pairId}`;
    case 'pair.rejected':
      return `${e.type}|${e.generation}|${e.envId}|${e.userId}|${e.parent}|${e.operator}`;
    case 'agent.updated':
    case 'hook.finished':
    case 'generation.started':
    case 'generation.finished':
      return `${e.type}|${e.generation}`;
    default:
      return undefined;
  }
}
