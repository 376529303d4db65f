import { z } from 'zod';
import type { ChatModel } from '../../ports/model.js';
import { agentConfigSchema } from '../../spec/agent.js';
import type { AgentConfig } from '../../spec/agent.js';
import type { AgentEvolverRole } from '../ports.js';
import { childId } from './childIdentity.js';
import { transcriptBudgetChars } from './contextFit.js';
import { roleMarker } from './roleMarker.js';
import { completeStructured } from './structuredOutput.js';
import { describeOutcome, renderTranscript } from './transcript.js';

export const playbookUpdateSchema = z.strictObject({
  diagnosis: z.string().min(1).max(4000).describe('What went wrong across the failed episodes, and why.'),
  playbook: z.array(z.string().min(1).max(400)).min(1).max(40).describe('The complete revised playbook: short, general lessons with when they apply.'),
  change: z.string().min(1).max(400).describe('The one change to the playbook, in a sentence (kept in the agent lineage).'),
});

export const agentEvolverInstructions = `You improve an AI terminal agent without touching its weights, by revising its playbook: a short list of lessons appended to its instructions.

You receive the current playbook and failed episodes (transcripts and outcomes). Diagnose what went wrong, then return the complete revised playbook.

Rules:
- Make one focused change (add, sharpen or remove a lesson); a candidate is promoted only if it wins on held-out tasks, so a small, testable change is best.
- Lessons are general ("ask which field to sort by when the request does not say"), never answers to one task.
- Each lesson says when it applies. Keep the playbook short.
Answer as JSON: {"diagnosis": "...", "playbook": ["...", ...], "change": "..."}.`;

/** Reflective playbook update (GEPA-style) from failed trajectories; the controller decides promotion. */
export function createLlmAgentEvolver(model: ChatModel, options: { maxRepairs?: number; maxFailures?: number } = {}): AgentEvolverRole {
  const maxRepairs = options.maxRepairs ?? 2;
  const maxFailures = options.maxFailures ?? 4;
  return {
    kind: 'llm',
    // Read through: the model behind the role can change between generations (a trainer hook's checkpoint).
    get label() {
      return model.label;
    },
    get settings() {
      return model.settings;
    },
    async propose({ current, failures, generation, rng, signal }) {
      const operator = 'llm:reflect';
      const shown = failures.slice(0, maxFailures);
      const budget = transcriptBudgetChars(8000 * shown.length, await model.contextWindow?.(signal), model.settings?.maxTokens);
      const episodes = shown.map((f, i) => {
        const submitted = f.steps.some((s) => s.tool_calls?.some((c) => c.function_name === 'submit'));
        return `Episode ${i + 1} (task "${f.env.title}", reward ${f.reward.toFixed(2)}):\nTask: ${f.env.instruction}\n${renderTranscript(f.steps, { maxChars: Math.floor(budget / Math.max(1, shown.length)) })}\n${describeOutcome(submitted, undefined)}`;
      });
      const result = await completeStructured(model, {
        messages: [
          { role: 'system', content: `${roleMarker('agent-evolver')}\n${agentEvolverInstructions}` },
          {
            role: 'user',
            content: [
              `Current playbook:\n${current.playbook.length > 0 ? current.playbook.map((l) => `- ${l}`).join('\n') : '(empty)'}`,
              ...episodes,
            ].join('\n\n'),
          },
        ],
        schema: playbookUpdateSchema,
        schemaName: 'playbook_update',
        check: (update) => (sameList(update.playbook, current.playbook) ? ['playbook: unchanged; make one focused change'] : []),
        maxRepairs,
        seed: rng.int(0, 2 ** 31 - 1),
        ...(signal ? { signal } : {}),
      });
      if (!result.ok) return { ok: false, operator, reason: `agent evolver output rejected: ${result.reason}`, usage: result.usage };
      const candidate = agentConfigSchema.safeParse({
        ...current,
        id: childId(current.id, generation, rng),
        playbook: result.value.playbook,
        lineage: { parent: current.id, operator: `${operator}: ${result.value.change}`.slice(0, 128), generation },
      });
      if (!candidate.success) {
        return { ok: false, operator, reason: `agent evolver produced an invalid agent: ${candidate.error.issues.map((i) => i.message).join('; ')}`, usage: result.usage };
      }
      return { ok: true, child: candidate.data as AgentConfig, operator, usage: result.usage, repairs: result.repairs };
    },
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x.trim() === b[i]?.trim());
}
