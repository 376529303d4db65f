import { z } from 'zod';
import type { ChatModel } from '../../ports/model.js';
import { hashString } from '../../ports/rng.js';
import type { AtifStep } from '../../rollout/trajectory.js';
import type { EnvironmentSpec } from '../../spec/environment.js';
import type { JudgeRole } from '../ports.js';
import { rubricTags, rubricVocabulary } from '../rubric.js';
import type { RubricTag } from '../rubric.js';
import { transcriptBudgetChars } from './contextFit.js';
import { roleMarker } from './roleMarker.js';
import { completeStructured } from './structuredOutput.js';
import { describeOutcome, renderTranscript } from './transcript.js';

export const judgementSchema = z.strictObject({
  tags: z
    .array(
      z.strictObject({
        tag: z.enum(rubricTags as [RubricTag, ...RubricTag[]]).describe('A label from the rubric vocabulary.'),
        steps: z.array(z.number().int().min(0)).max(50).default([]).describe('Step numbers that show it.'),
        evidence: z.string().max(1000).describe('What in those steps shows it, in one sentence.'),
      }),
    )
    .max(rubricTags.length * 2),
});

export function judgeSystemPrompt(): string {
  return [
    roleMarker('judge'),
    'You review one episode of an AI agent working in a terminal for a user, and tag it with labels from a fixed rubric.',
    'Apply every label the transcript clearly supports, and only those; each needs evidence from numbered steps. An episode may get no label.',
    'The rubric:',
    ...rubricTags.map((t) => `- ${t}: ${rubricVocabulary[t].description}`),
    'Answer as JSON: {"tags": [{"tag": "...", "steps": [3, 4], "evidence": "..."}]}.',
  ].join('\n');
}

function judgeRequest(env: EnvironmentSpec, transcript: string, outcome: string): string {
  return [
    `Task given to the agent:\n${env.instruction}`,
    `What the user wanted (hidden from the agent): ${env.user.goal}`,
    env.user.facts.length > 0 ? `Facts only the user knew:\n${env.user.facts.map((f) => `- ${f.text}`).join('\n')}` : '',
    `Transcript:\n${transcript}`,
    outcome,
  ].filter(Boolean).join('\n\n');
}

/**
 * The judge gets no random stream, so its seed comes from what identifies the episode in a replay: the environment
 * and the agent's own turns (which a replay serves from the cache), not the observations (which may differ).
 */
function episodeSeed(envId: string, steps: readonly AtifStep[]): number {
  const agentSide = steps.filter((s) => s.source === 'agent').map((s) => [s.message, s.tool_calls ?? []]);
  return hashString(`${envId}:${JSON.stringify(agentSide)}`) & 0x7fffffff;
}

/** The LLM judge: rubric tags as structured output; an unusable judgement yields no tags (tags are never the only signal). */
export function createLlmJudge(model: ChatModel, options: { maxRepairs?: number } = {}): JudgeRole {
  const maxRepairs = options.maxRepairs ?? 1;
  return {
    kind: 'llm',
    label: model.label,
    ...(model.settings ? { settings: model.settings } : {}),
    async judge({ env, steps, verifier, signal }) {
      const submitted = steps.some((s) => s.tool_calls?.some((c) => c.function_name === 'submit'));
      const result = await completeStructured(model, {
        messages: [
          { role: 'system', content: judgeSystemPrompt() },
          { role: 'user', content: judgeRequest(env, renderTranscript(steps, { maxChars: transcriptBudgetChars(32_000, await model.contextWindow?.(signal), model.settings?.maxTokens) }), describeOutcome(submitted, verifier)) },
        ],
        schema: judgementSchema,
        schemaName: 'rubric_judgement',
        maxRepairs,
        temperature: 0,
        seed: episodeSeed(env.id, steps),
        ...(signal ? { signal } : {}),
      });
      if (!result.ok) return { tags: [], usage: result.usage };
      const tags = [...new Set(result.value.tags.map((t) => t.tag))];
      return { tags, usage: result.usage };
    },
  };
}
