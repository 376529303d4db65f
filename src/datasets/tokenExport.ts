import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import type { TokenTurn } from '../core/rollout/tokenSidecar.js';
import type { AtifTrajectory } from './atifExport.js';
import type { SplitName } from './splits.js';

/**
 * Token-level data for RL trainers, exported next to the chat data: `data/{split}.tokens.jsonl`, one line per
 * rollout that carries token data (keyed by `rollout_id`, the same rollout as the chat line), in the shape
 * on-policy trainers read:
 *  - `turns`: per agent turn, the prompt and completion token ids and the completion's logprobs exactly as the
 *    server sent them, and `loss_mask` over `prompt_token_ids ++ completion_token_ids` (0 on the prompt, 1 on the
 *    completion: only what the model generated is trained on);
 *  - `sequence`: when every turn's prompt starts with the previous turn's prompt and completion (the conversation
 *    is one growing token sequence), the whole rollout as one `input_ids` with `loss_mask` 1 exactly on the tokens
 *    the model sampled and their `logprobs` (null elsewhere); null when the chat template re-rendered history.
 */
export interface TokenTurnLine {
  step: number;
  prompt_token_ids: number[] | null;
  completion_token_ids: number[] | null;
  completion_logprobs: number[] | null;
  loss_mask: number[] | null;
}

export interface TokenRolloutLine {
  rollout_id: string;
  model: string | null;
  reward: number;
  success: boolean;
  turns: TokenTurnLine[];
  sequence: { input_ids: number[]; loss_mask: number[]; logprobs: (number | null)[] } | null;
}

export function tokenLine(rollout: RolloutRecord, turns: readonly TokenTurn[]): TokenRolloutLine {
  return {
    rollout_id: rollout.id,
    model: rollout.models?.agent?.model ?? null,
    reward: rollout.rewards.total,
    success: rollout.success,
    turns: turns.map(turnLine),
    sequence: chainedSequence(turns),
  };
}

function turnLine(t: TokenTurn): TokenTurnLine {
  const prompt = t.promptTokenIds ?? null;
  const completion = t.completionTokenIds ?? null;
  let mask: number[] | null = null;
  if (completion) mask = [...new Array<number>(prompt?.length ?? 0).fill(0), ...new Array<number>(completion.length).fill(1)];
  return { step: t.step, prompt_token_ids: prompt, completion_token_ids: completion, completion_logprobs: t.completionLogprobs ?? null, loss_mask: mask };
}

function chainedSequence(turns: readonly TokenTurn[]): TokenRolloutLine['sequence'] {
  if (turns.length === 0) return null;
  let ids: number[] = [];
  const mask: number[] = [];
  const logprobs: (number | null)[] = [];
  for (const t of turns) {
    const prompt = t.promptTokenIds;
    const completion = t.completionTokenIds;
    if (!prompt || !completion) return null;
    if (prompt.length < ids.length || ids.some((id, i) => prompt[i] !== id)) return null;
    // The prompt's new tokens (observations, the user's words, the template's markers) are context: mask 0.
    for (let i = ids.length; i < prompt.length; i++) {
      mask.push(0);
      logprobs.push(null);
    }
    completion.forEach((_, i) => {
      mask.push(1);
      logprobs.push(t.completionLogprobs?.[i] ?? null);
    });
    ids = [...prompt, ...completion];
  }
  return { input_ids: ids, loss_mask: mask, logprobs };
}

/**
 * ATIF (v1.3+) carries token data on the agent step's metrics: `prompt_token_ids`, `completion_token_ids`,
 * `logprobs`. Export steps are the rollout's steps in order, so a turn's step is found by its position.
 */
export function withAtifTokens(trajectory: AtifTrajectory, rollout: RolloutRecord, turns: readonly TokenTurn[] | undefined): AtifTrajectory {
  for (const t of turns ?? []) {
    const step = trajectory.steps[rollout.steps.findIndex((s) => s.step_id === t.step)];
    if (!step || step.source !== 'agent') continue;
    step.metrics = {
      ...step.metrics,
      ...(t.promptTokenIds ? { prompt_token_ids: t.promptTokenIds } : {}),
      ...(t.completionTokenIds ? { completion_token_ids: t.completionTokenIds } : {}),
      ...(t.completionLogprobs ? { logprobs: t.completionLogprobs } : {}),
    };
  }
  return trajectory;
}

/** Collects the token lines of an export, one file per split, and says in the dataset card what carries them. */
export class TokenExport {
  private readonly fds = new Map<SplitName, number>();
  private readonly carried: string[] = [];
  readonly files: string[] = [];
  private considered = 0;

  constructor(private readonly outDir: string) {}

  add(split: SplitName, rollout: RolloutRecord, turns: readonly TokenTurn[] | undefined): void {
    this.considered++;
    if (!turns || turns.length === 0) return;
    let fd = this.fds.get(split);
    if (fd === undefined) {
      const rel = `data/${split}.tokens.jsonl`;
      const path = join(this.outDir, rel);
      mkdirSync(dirname(path), { recursive: true });
      fd = openSync(path, 'w');
      this.fds.set(split, fd);
      this.files.push(rel);
    }
    writeSync(fd, `${JSON.stringify(tokenLine(rollout, turns))}\n`);
    this.carried.push(rollout.id);
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /** The dataset card's section: how many rollouts carry token data, which, and where. */
  cardSection(): string[] {
    if (this.considered === 0) return [];
    if (this.carried.length === 0) return ['## Token-level data', '', `None of the ${this.considered} exported rollouts carries token-level data (the agent's role did not ask for it: \`tokenData\`).`, ''];
    const shown = this.carried.length <= 50 ? ` (${this.carried.map((id) => `\`${id}\``).join(', ')})` : '';
    return [
      '## Token-level data',
      '',
      `${this.carried.length} of the ${this.considered} exported rollouts carry token-level data${shown}, in ${this.files.map((f) => `\`${f}\``).join(', ')}: one line per rollout, keyed by \`rollout_id\`.`,
      'Per agent turn: `prompt_token_ids`, `completion_token_ids`, `completion_logprobs` exactly as the server sent them, and',
      '`loss_mask` over prompt ++ completion (1 only on what the model generated). `sequence` is the whole rollout as one',
      'token sequence when each prompt extends the previous prompt and completion, else null.',
      '',
    ];
  }
}
