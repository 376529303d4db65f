import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import type { RunEvent, RunManifest } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import { indexEvents, readManifest, type RunIndex } from '../store/runReader.js';
import { EventTail } from './eventTail.js';
import type { EnvInfo, RunSource, UserInfo } from './liveRun.js';
import { StoredFacts } from './storedFacts.js';

/**
 * The start of a rollout event's line as the run writer writes it (`{"seq":N,"at":"…","type":"rollout.`), anchored,
 * so only a line whose top-level type is a rollout event matches; a line written any other way is parsed in full.
 */
const rolloutLine = /^\{"seq":\d+,"at":"[^"\\]*","type":"rollout\./;

export const isRolloutLine = (line: string): boolean => rolloutLine.test(line);

/**
 * A run's outline: the index of its event log without the rollout events (generations, specs and their lineage,
 * rejections, agent updates, retirements, status), which is what the dashboard draws, with its stored metrics and spec
 * facts cached. Rollout lines, nearly all of a large run's log, are dropped before JSON.parse and the event check,
 * so a 10,000-rollout run outlines in a fraction of a LiveRun's open. Tailed like a LiveRun: each refresh reads only
 * what was appended; `run.rollouts` and each generation's `rollouts` and `inFlight` stay empty.
 */
export class RunOutline implements RunSource {
  readonly manifest: RunManifest;
  private readonly tail: EventTail;
  private events: RunEvent[] = [];
  private index: RunIndex;
  private readonly facts: StoredFacts;

  constructor(readonly dir: string) {
    this.manifest = readManifest(dir);
    this.tail = new EventTail(runLayout.events(dir), isRolloutLine);
    this.facts = new StoredFacts(dir);
    this.index = indexEvents(dir, this.manifest, []);
    this.refresh();
  }

  get run(): RunIndex {
    return this.index;
  }

  /** Reads what was appended since the last call (the outline's events only). */
  refresh(): void {
    const { events, reset } = this.tail.read();
    if (reset) {
      this.events = [];
      this.facts.clear();
    }
    if (events.length === 0 && !reset) {
      if (this.index.status === 'running') this.index = indexEvents(this.dir, this.manifest, this.events);
      return;
    }
    for (const e of events) this.events.push(e);
    this.index = indexEvents(this.dir, this.manifest, this.events);
  }

  metrics(generation: number): GenerationMetrics | undefined {
    return this.facts.metrics(this.index, generation);
  }

  env(envId: string): EnvInfo | undefined {
    return this.facts.env(envId);
  }

  user(userId: string): UserInfo | undefined {
    return this.facts.user(userId);
  }
}
