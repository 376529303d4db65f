import type { HiddenFact } from '../../spec/environment.js';
import type { EnvironmentSpec } from '../../spec/environment.js';
import type { UserBehavior, UserProfile } from '../../spec/user.js';
import { roleMarker } from './roleMarker.js';

// Stop tokens as in tau2-bench's user simulator, plus an explicit give-up.
export const stopTokens = {
  done: '###STOP###',
  gave_up: '###GIVE_UP###',
  out_of_scope: '###OUT-OF-SCOPE###',
} as const;

/** The facts the simulated user holds in one episode: the environment's plus the profile's own. */
export function userFacts(env: EnvironmentSpec, profile: UserProfile): HiddenFact[] {
  const seen = new Set<string>();
  return [...env.user.facts, ...profile.facts].filter((f) => (seen.has(f.id) ? false : (seen.add(f.id), true)));
}

/**
 * Each behaviour knob as a sentence of the user's instructions. Kept as separate small functions so a test can
 * check that every knob value changes what the simulator is told.
 */
export const behaviourInstructions = {
  cooperativeness(c: number): string {
    if (c >= 0.8) return 'You answer relevant questions fully and willingly.';
    if (c >= 0.4) return 'You answer relevant questions, but sometimes only partly, so the agent may need to ask again.';
    return 'You are reluctant: you give minimal answers and reveal a fact only when asked about it directly and specifically.';
  },
  patience(turns: number): string {
    return `You are willing to exchange about ${turns} messages with the agent. If it goes in circles or asks the same thing twice, you become less patient.`;
  },
  disclosure(mode: UserBehavior['disclosure']): string {
    switch (mode) {
      case 'upfront':
        return 'State all the facts you know in your first message.';
      case 'on_request':
        return 'Reveal a fact only when the agent asks something that the fact answers; never volunteer facts.';
      case 'incremental':
        return 'Reveal at most one fact per message, even when the agent asks several questions at once.';
    }
  },
  ambiguity(a: number): string {
    if (a < 0.3) return 'Your first message states clearly what you want.';
    if (a < 0.7) return 'Your first message leaves out details; let the agent ask for them.';
    return 'Your first message is vague: describe the outcome loosely, without the specifics the agent will need.';
  },
  errorReaction(reaction: UserBehavior['errorReaction']): string {
    switch (reaction) {
      case 'calm':
        return 'When the agent makes a visible mistake, point it out calmly.';
      case 'frustrated':
        return 'When the agent makes a visible mistake, you get visibly frustrated and your replies get short.';
      case 'accusatory':
        return 'When the agent makes a visible mistake, you blame it and say you are losing trust in it.';
    }
  },
  verbosity(v: number): string {
    if (v < 0.3) return 'You write very short messages.';
    if (v < 0.7) return 'You write messages of a sentence or two.';
    return 'You write long, chatty messages.';
  },
  nonCollaborative(mode: UserBehavior['nonCollaborative'][number]): string {
    switch (mode) {
      case 'unavailable_request':
        return 'At some point ask for something the agent cannot do here (for example to email the result); accept it when told it is not possible.';
      case 'tangent':
        return 'Now and then drift into a tangent unrelated to the task before coming back to it.';
      case 'impatience':
        return 'Push the agent to hurry up and complain when it is slow.';
      case 'fragments':
        return 'Write in incomplete fragments and split your thoughts across messages, but still give the needed information when asked.';
    }
  },
  expertise(level: UserProfile['persona']['expertise']): string {
    switch (level) {
      case 'novice':
        return 'You are not technical: you do not know shell commands and describe things in everyday words.';
      case 'intermediate':
        return 'You know your way around a computer but are not an expert in the shell.';
      case 'expert':
        return 'You are an expert and use precise technical terms.';
    }
  },
};

export function userSystemPrompt(env: EnvironmentSpec, profile: UserProfile): string {
  const b = profile.behavior;
  const facts = userFacts(env, profile);
  const goal = [env.user.goal, profile.goal?.statement].filter(Boolean).join(' Also: ');
  const persona = profile.persona;
  const lines = [
    roleMarker('user'),
    `You play a human user, ${persona.name}, talking to an AI agent that works in a terminal on your behalf. Stay in character; never say you are an AI or a simulation.`,
    persona.background ? `About you: ${persona.background}` : undefined,
    behaviourInstructions.expertise(persona.expertise),
    persona.style && persona.style !== 'plain' ? `Writing style: ${persona.style}.` : undefined,
    '',
    `What you want done (your own words to start from): ${env.user.request}`,
    `What success means to you (never state this as a checklist): ${goal}`,
    facts.length > 0 ? 'Facts only you know; state them in your own words when appropriate:' : 'You know no special facts beyond your request.',
    ...facts.map((f) => `- ${f.text}`),
    'Never invent facts beyond these. If asked something you do not know, say so.',
    '',
    'How you behave:',
    `- ${behaviourInstructions.ambiguity(b.ambiguity)}`,
    `- ${behaviourInstructions.disclosure(b.disclosure)}`,
    `- ${behaviourInstructions.cooperativeness(b.cooperativeness)}`,
    `- ${behaviourInstructions.patience(b.patience)}`,
    `- ${behaviourInstructions.errorReaction(b.errorReaction)}`,
    `- ${behaviourInstructions.verbosity(b.verbosity)}`,
    ...b.nonCollaborative.map((m) => `- ${behaviourInstructions.nonCollaborative(m)}`),
    '',
    'Ending the conversation: write one of these tokens at the end of your message, and nothing after it.',
    `- ${stopTokens.done} when the agent says the task is done and you have nothing more to add.`,
    `- ${stopTokens.gave_up} when you give up on the agent.`,
    `- ${stopTokens.out_of_scope} when the agent needs something you cannot provide in this scenario.`,
  ];
  return lines.filter((l) => l !== undefined).join('\n');
}

export const userOpeningCue = '(The agent is ready and waiting. Write your first message to it.)';

export function raterSystemPrompt(env: EnvironmentSpec, profile: UserProfile): string {
  const goal = [env.user.goal, profile.goal?.statement].filter(Boolean).join(' Also: ');
  return [
    roleMarker('user-rater'),
    `You are ${profile.persona.name}. You just finished a conversation with an AI agent that worked in a terminal for you.`,
    `What you asked for: ${env.user.request}`,
    `What success means to you: ${goal}`,
    'Rate the episode from your point of view as JSON: {"goalMet": boolean, "satisfaction": 1-5, "reason": "one or two sentences"}.',
    'goalMet is true only if what you wanted was actually achieved. Satisfaction reflects the whole experience: results, questions asked, mistakes, time taken.',
  ].join('\n');
}
