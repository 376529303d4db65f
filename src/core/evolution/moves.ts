import type { Cancellation } from '../ports/cancellation.js';
import type { Rng } from '../ports/rng.js';
import type { DesignMove, DesignerRole, Direction, PairStats, Proposal, UserEvolverRole } from '../roles/ports.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';

/** The two moves of a role that can only propose by direction (LLM designers): "a bit harder", "a bit easier". */
const directionMoves = (): DesignMove[] => [
  { id: 'harder', direction: 'harder', description: 'a small change that makes the task harder (the role chooses it)' },
  { id: 'easier', direction: 'easier', description: 'a small change that makes the task easier (the role chooses it)' },
];

type MoveRole<T> = { moves?(parent: T, agent?: AgentConfig): DesignMove[] };

/** The moves the controller may choose from for this parent: the role's listed single steps, else by direction. */
export function availableMoves<T>(role: MoveRole<T>, parent: T, agent?: AgentConfig): DesignMove[] {
  return role.moves ? role.moves(parent, agent) : directionMoves();
}

interface MakeChildInput<T> {
  parent: T;
  move: DesignMove;
  stats: PairStats;
  generation: number;
  rng: Rng;
  signal?: Cancellation;
}

/** The child of a chosen move: `apply` when the role lists moves, else `propose` in the move's direction. */
export function makeEnvironmentChild(designer: DesignerRole, input: MakeChildInput<EnvironmentSpec>): Promise<Proposal<EnvironmentSpec>> {
  const { parent, move, stats, generation, rng, signal } = input;
  if (designer.moves && designer.apply) return designer.apply({ parent, move, generation, rng, ...(signal ? { signal } : {}) });
  return designer.propose({ parent, direction: move.direction, ...(move.knob ? { knob: move.knob } : {}), stats, generation, rng, ...(signal ? { signal } : {}) });
}

export function makeUserChild(evolver: UserEvolverRole, input: MakeChildInput<UserProfile>): Promise<Proposal<UserProfile>> {
  const { parent, move, stats, generation, rng, signal } = input;
  if (evolver.moves && evolver.apply) return evolver.apply({ parent, move, generation, rng, ...(signal ? { signal } : {}) });
  return evolver.propose({ parent, direction: move.direction, stats, generation, rng, ...(signal ? { signal } : {}) });
}

export type { Direction };
