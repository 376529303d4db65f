import type { AgentGenes } from '../../core/spec/agent.js';

export type CommandIdiom = AgentGenes['idiom'];

/** What the heuristic agent has learned so far in one episode: facts from the user or the instruction, and workspace state. */
export interface Knowledge {
  facts: Map<string, string>;
  /** Workspace details read from real command output (e.g. a CSV separator). */
  found: Map<string, string>;
  /** The inputs the agent will work on: every candidate it did not see to be a decoy. */
  inputs: string[];
  /** Output stages the instruction asks for (the horizon as the agent reads it). */
  stages: number;
  /** Whether the instruction offers check.sh. */
  hasCheck: boolean;
  /** Slots the instruction says matter. */
  wanted: string[];
}

/** A fact the task may hide: how to ask for it, how to read it out of a sentence, and what to assume otherwise. */
export interface FactSlot {
  id: string;
  question: string;
  parse(text: string): string | undefined;
  /** The default assumed when nobody says; wrong by design of the generators. */
  guess: string;
}

/**
 * Defects a careless command introduces, named after the strictness that stops forgiving them:
 * `order` (lines out of order or misplaced: strictness 0 forgives it), `space` (stray whitespace: strictness 0 and 1
 * forgive it), `content` (a wrong value: never forgiven).
 */
export type Slip = 'order' | 'space' | 'content';
export const slipKinds: readonly Slip[] = ['order', 'space', 'content'];

export interface PlannedCommand {
  command: string;
  /** Stage name, for slips and the trace. */
  stage: string;
}

/** One output stage of a family's procedure and the defects a slip there can cause. */
export interface StageDef {
  name: string;
  slips: readonly Slip[];
}

/**
 * Per-family knowledge of the built-in agent. It reads only public text and real command output: a listing shows
 * the candidate inputs, a look at one candidate shows whether it is a decoy, and the solution is real shell.
 */
export interface FamilyPlaybook {
  /** The idiom that fits this family best; others slip more often. */
  bestIdiom: CommandIdiom;
  slots: FactSlot[];
  readInstruction(instruction: string, k: Knowledge): void;
  /** The listing the agent always starts with. */
  survey: string;
  /** Candidate inputs named in the survey's real output (the live input and the decoys look alike there). */
  candidates(surveyOutput: string): string[];
  /** A command that shows enough of one candidate to tell a decoy, and how to read its output. */
  inspect(path: string): string;
  observeInspect(path: string, output: string, k: Knowledge): 'decoy' | 'input';
  /** Stages of the solution for what the agent knows, in order; every stage is a chance to slip. */
  stages(k: Knowledge): StageDef[];
  /** The solution as commands; `slip(stage)` says whether (and how) the agent fumbles that stage. */
  solve(k: Knowledge, idiom: CommandIdiom, slip: (stage: string) => Slip | undefined): PlannedCommand[];
  /** The file check.sh / a look should be pointed at. */
  outputPath(k: Knowledge): string;
}

export function emptyKnowledge(): Knowledge {
  return { facts: new Map(), found: new Map(), inputs: [], stages: 1, hasCheck: false, wanted: [] };
}

/** The value of a fact slot: learned, else the slot's guess. */
export function factOr(k: Knowledge, slots: FactSlot[], id: string): string {
  return k.facts.get(id) ?? slots.find((s) => s.id === id)?.guess ?? '';
}

/** Backticked values in a text, in order (fact sentences carry their values in backticks). */
export function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
}

/** Names ending in `suffix` in the output of `ls`, `ls -la` or `find`, as paths under `dir`, sorted and unique. */
export function listedFiles(output: string, dir: string, suffix: RegExp): string[] {
  const names = output.split(/\s+/).map((w) => w.replace(/^\.\//, '')).filter((w) => suffix.test(w));
  return [...new Set(names.map((n) => (n.startsWith(`${dir}/`) ? n : `${dir}/${n.replace(/^.*\//, '')}`)))].sort();
}
