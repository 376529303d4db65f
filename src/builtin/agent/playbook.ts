import type { Rng } from '../../core/ports/rng.js';
import type { AgentGenes } from '../../core/spec/agent.js';

export type CommandIdiom = AgentGenes['idiom'];

/** What the heuristic agent has learned so far in one episode: facts from the user or the instruction, and workspace state. */
export interface Knowledge {
  facts: Map<string, string>;
  found: Map<string, string>;
  /** Output stages the instruction asks for (the horizon as the agent reads it). */
  stages: number;
  /** Whether the instruction offers check.sh. */
  hasCheck: boolean;
  /** Slots the instruction says matter (config-repair names the keys to fix). */
  wanted: string[];
}

/** A fact the task may hide: how to ask for it, how to read it out of a sentence, and what to assume otherwise. */
export interface FactSlot {
  id: string;
  question: string;
  parse(text: string): string | undefined;
  /** The default assumed when nobody says; usually wrong, by design of the generators. */
  guess: string;
}

/** Defects a careless command introduces: wrong order, stray whitespace, or wrong content. */
export type Slip = 'order' | 'space' | 'content';

export interface PlannedCommand {
  command: string;
  /** Stage name, for slips and the trace. */
  stage: string;
}

/** Per-family knowledge of the built-in agent. It reads only public text and real command output. */
export interface FamilyPlaybook {
  /** The idiom that fits this family best; others slip more often. */
  bestIdiom: CommandIdiom;
  slots: FactSlot[];
  readInstruction(instruction: string, k: Knowledge): void;
  /**
   * The `step`-th command to look around with (0-based), or undefined when done. `thorough` follows pointers and
   * reads headers; otherwise a bare listing. Later steps may depend on what earlier ones revealed.
   */
  explore(thorough: boolean, k: Knowledge, step: number): string | undefined;
  /** Learn from a command's real output. */
  observe(command: string, output: string, k: Knowledge): void;
  /** The solution as commands; `slip(stage)` says whether (and how) the agent fumbles that stage. */
  solve(k: Knowledge, idiom: CommandIdiom, slip: (stage: string) => Slip | undefined, rng: Rng): PlannedCommand[];
  /** The file check.sh / a look should be pointed at. */
  outputPath(k: Knowledge): string;
}

export function emptyKnowledge(): Knowledge {
  return { facts: new Map(), found: new Map(), stages: 1, hasCheck: false, wanted: [] };
}

/** The value of a fact slot: learned, else the slot's guess. */
export function factOr(k: Knowledge, slots: FactSlot[], id: string): string {
  return k.facts.get(id) ?? slots.find((s) => s.id === id)?.guess ?? '';
}

/** Backticked values in a text, in order (fact sentences carry their values in backticks). */
export function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
}
