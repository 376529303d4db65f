import { z } from 'zod';
import { zeroUsage } from '../../ports/model.js';
import type { ChatMessage, ChatModel, Usage } from '../../ports/model.js';
import type { StopReason, UserRating } from '../../rollout/trajectory.js';
import type { EnvironmentSpec, HiddenFact } from '../../spec/environment.js';
import type { UserProfile } from '../../spec/user.js';
import type { UserEpisode, UserRole, UserTurn } from '../ports.js';
import { transcriptBudgetChars } from './contextFit.js';
import { completeStructured } from './structuredOutput.js';
import { describeOutcome, renderTranscript } from './transcript.js';
import { raterSystemPrompt, stopTokens, userFacts, userOpeningCue, userSystemPrompt } from './userPrompt.js';

export const userRatingSchema = z.strictObject({
  goalMet: z.boolean().describe('Whether what the user wanted was actually achieved.'),
  satisfaction: z.number().int().min(1).max(5).describe('1 (very unhappy) .. 5 (very happy).'),
  reason: z.string().min(1).max(2000).describe('One or two sentences.'),
});

/** What the simulated user said, with any stop token taken out and turned into a stop reason. */
export function readStopToken(text: string): { message: string; stop?: StopReason } {
  const found = (Object.entries(stopTokens) as [Exclude<StopReason, 'out_of_patience' | 'agent_submitted'>, string][]).find(([, token]) => text.includes(token));
  if (!found) return { message: text.trim() };
  const [reason, token] = found;
  const message = text.split(token).join('').trim();
  return { message: message || (reason === 'done' ? 'Thanks, that is all.' : 'I will stop here.'), stop: reason };
}

const stopWords = new Set(['the', 'and', 'for', 'are', 'is', 'to', 'of', 'in', 'on', 'it', 'be', 'with', 'that', 'this', 'my', 'our', 'we', 'you', 'only', 'should', 'must', 'use', 'want']);

const words = (text: string): string[] => text.toLowerCase().replace(/[^a-z0-9._-]+/g, ' ').split(' ').filter((w) => w.length > 0);

/**
 * Whether a message states a fact: every number of the fact appears and most of its other content words do. A
 * heuristic (an LLM user paraphrases), good enough for disclosure-timing metrics; it never decides a reward.
 */
export function statesFact(message: string, fact: HiddenFact): boolean {
  const said = new Set(words(message));
  const content = words(fact.text).filter((w) => !stopWords.has(w) && (w.length >= 3 || /\d/.test(w)));
  if (content.length === 0) return false;
  const numbers = content.filter((w) => /\d/.test(w));
  if (!numbers.every((n) => said.has(n))) return false;
  const others = content.filter((w) => !/\d/.test(w));
  if (others.length === 0) return true;
  return others.filter((w) => said.has(w)).length / others.length >= 0.6;
}

/**
 * The LLM simulated user. Behaviour knobs become its instructions; stop tokens end the dialogue; patience is
 * enforced by counting the agent's messages rather than trusted to the model.
 */
export function createLlmUser(model: ChatModel, options: { maxRepairs?: number } = {}): UserRole {
  const maxRepairs = options.maxRepairs ?? 2;
  return {
    kind: 'llm',
    label: model.label,
    ...(model.settings ? { settings: model.settings } : {}),
    begin(start) {
      return userEpisode(startUserConversation(model, start), maxRepairs);
    },
  };
}

type UserEpisodeStart = Parameters<UserRole['begin']>[0];
type RateInput = Parameters<UserEpisode['rate']>[0];

/** One episode's dialogue as the simulated user sees it, and what it has said and decided so far. */
interface UserConversation {
  readonly model: ChatModel;
  readonly env: EnvironmentSpec;
  readonly profile: UserProfile;
  readonly messages: ChatMessage[];
  readonly facts: HiddenFact[];
  readonly disclosed: Set<string>;
  readonly seed: number;
  agentMessages: number;
  stopped: StopReason | undefined;
}

function startUserConversation(model: ChatModel, { env, profile, rng }: UserEpisodeStart): UserConversation {
  const messages: ChatMessage[] = [{ role: 'system', content: userSystemPrompt(env, profile) }];
  const facts = userFacts(env, profile);
  const disclosed = new Set<string>();
  const seed = rng.int(0, 2 ** 31 - 1);
  return { model, env, profile, messages, facts, disclosed, seed, agentMessages: 0, stopped: undefined };
}

function userEpisode(conv: UserConversation, maxRepairs: number): UserEpisode {
  return {
    open(signal) {
      conv.messages.push({ role: 'user', content: userOpeningCue });
      return speak(conv, signal);
    },
    async reply(agentMessage, signal) {
      conv.agentMessages++;
      if (conv.agentMessages > conv.profile.behavior.patience) {
        conv.stopped = 'out_of_patience';
        return { message: 'This is taking too long. I have to stop here.', stop: 'out_of_patience', disclosedFacts: [], usage: zeroUsage() };
      }
      conv.messages.push({ role: 'user', content: agentMessage });
      return speak(conv, signal);
    },
    rate(input) {
      return rateConversation(conv, maxRepairs, input);
    },
  };
}

/** The user's next message, with the facts it states for the first time and any stop it asks for. */
async function speak(conv: UserConversation, signal: AbortSignal | undefined): Promise<UserTurn> {
  const { model, messages, facts, disclosed, seed } = conv;
  const res = await model.complete({ messages, seed, ...(signal ? { signal } : {}) });
  const raw = res.message.content ?? '';
  messages.push({ role: 'assistant', content: raw, ...(res.message.reasoning ? { reasoning: res.message.reasoning } : {}) });
  const { message, stop } = readStopToken(raw);
  const newly = facts.filter((f) => !disclosed.has(f.id) && statesFact(message, f)).map((f) => f.id);
  newly.forEach((id) => disclosed.add(id));
  if (stop) conv.stopped = stop;
  return { message, disclosedFacts: newly, usage: res.usage, ...(stop ? { stop } : {}) };
}

/** The user's end-of-episode rating, asked as structured output, else the verifier's verdict. */
async function rateConversation(conv: UserConversation, maxRepairs: number, { steps, submitted, verifier, signal }: RateInput): Promise<{ rating: UserRating; usage: Usage }> {
  const { model, env, profile, seed } = conv;
  const stopReason: StopReason = conv.stopped ?? (submitted ? 'agent_submitted' : 'out_of_patience');
  const result = await completeStructured(model, {
    messages: [
      { role: 'system', content: raterSystemPrompt(env, profile) },
      { role: 'user', content: `The conversation:\n${renderTranscript(steps, { maxChars: transcriptBudgetChars(24_000, await model.contextWindow?.(signal), model.settings?.maxTokens) })}\n\n${describeOutcome(submitted, verifier)}\n\nYour rating as JSON:` },
    ],
    schema: userRatingSchema,
    schemaName: 'user_rating',
    maxRepairs,
    temperature: 0,
    seed,
    ...(signal ? { signal } : {}),
  });
  if (result.ok) return { rating: { ...result.value, stopReason }, usage: result.usage };
  return { rating: fallbackRating(submitted, verifier, result.reason, stopReason), usage: result.usage };
}

// A rater that cannot produce a rating must not lose the episode: fall back to the verifier's verdict,
// and say so in the reason.
function fallbackRating(submitted: boolean, verifier: RateInput['verifier'], invalidReason: string, stopReason: StopReason): UserRating {
  return {
    goalMet: submitted && (verifier?.reward ?? 0) >= 1,
    satisfaction: submitted && (verifier?.reward ?? 0) >= 1 ? 3 : 1,
    reason: `rating fell back to the verifier verdict: the simulated user's rating was invalid (${invalidReason})`,
    stopReason,
  };
}
