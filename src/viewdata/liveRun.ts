import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import type { RunEvent, RunManifest } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import { indexEvents, readManifest, type RunIndex } from '../store/runReader.js';
import { EventTail } from './eventTail.js';
import { StoredFacts } from './storedFacts.js';

/** Where a spec version came from (its lineage), for the names viewers give evolved specs. */
export interface LineageInfo {
  parent: string | null;
  operator: string | null;
  generation: number;
}

/** What a viewer knows of an environment version without the rollout files: read once from environments/<id>.json. */
export interface EnvInfo {
  family: string;
  difficulty: number;
  title: string;
  lineage?: LineageInfo;
}

/** What a viewer knows of a user version: read once from users/<id>.json. */
export interface UserInfo {
  persona: { name: string };
  lineage?: LineageInfo;
}

/** A run as every viewer reads it: the index of its events, stored metrics, environment and user facts. */
export interface RunSource {
  run: RunIndex;
  /** Stored metrics of a finished generation, if written. */
  metrics(generation: number): GenerationMetrics | undefined;
  env(envId: string): EnvInfo | undefined;
  user?(userId: string): UserInfo | undefined;
}

/**
 * One run directory as a viewer (the editor or `coevolve view`) sees it: the event log read incrementally, the index rebuilt from the events in
 * memory (never by re-reading the file), stored metrics and environment facts cached once they exist (they are
 * written once and never change).
 */
export class LiveRun implements RunSource {
  readonly manifest: RunManifest;
  private readonly tail: EventTail;
  private events: RunEvent[] = [];
  private index: RunIndex;
  private readonly facts: StoredFacts;

  constructor(readonly dir: string) {
    this.manifest = readManifest(dir);
    this.tail = new EventTail(runLayout.events(dir));
    this.facts = new StoredFacts(dir);
    this.index = indexEvents(dir, this.manifest, []);
    this.refresh();
  }

  get run(): RunIndex {
    return this.index;
  }

  /** Reads what was appended since the last call; returns the new events (all of them after a reset). */
  refresh(): RunEvent[] {
    const { events, reset } = this.tail.read();
    if (reset) {
      this.events = [];
      this.facts.clear();
    }
    if (events.length === 0 && !reset) {
      // Status can change without events (the writer's process died): recompute it cheaply.
      if (this.index.status === 'running') this.index = indexEvents(this.dir, this.manifest, this.events);
      return [];
    }
    for (const e of events) this.events.push(e);
    this.index = indexEvents(this.dir, this.manifest, this.events);
    return events;
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
