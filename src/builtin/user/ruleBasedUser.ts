import { zeroUsage } from '../../core/ports/model.js';
import type { Rng } from '../../core/ports/rng.js';
import type { UserEpisode, UserRole, UserTurn } from '../../core/roles/ports.js';
import type { AtifStep, StopReason, UserRating, VerifierOutcome } from '../../core/rollout/trajectory.js';
import type { EnvironmentSpec, HiddenFact } from '../../core/spec/environment.js';
import type { UserProfile } from '../../core/spec/user.js';
import { backticked } from '../agent/playbook.js';

export const ruleBasedUserLabel = 'built-in rule-based user (not an LLM)';

const tangents = ['By the way, did you see the game last night?', 'Oh, and the coffee machine is broken again.', 'Sorry, my other screen keeps pinging me.'];
const toneOnRepeat = { calm: 'As I said, ', frustrated: 'I already told you that. ', accusatory: 'Are you even listening? I said it already: ' } as const;
const unavailableAsk = 'Also, please email the result to my boss when you are done.';

/**
 * How a user's knobs shape what it says. Each knob is its own mechanism, graded so that every step of it costs the
 * agent a little more of its question budget (npm run bench:calibration, "User moves"), and each is one a careful
 * agent can cope with by asking again:
 * - cooperativeness and expertise: a fact it is asked about is told in full with probability
 *   cooperativeness^(1 + expertise term); otherwise the answer names the topic but not the value (partial
 *   cooperation; a fully cooperative user always answers in full);
 * - ambiguity: the first answer about a fact is too vague to act on with probability `vagueFirst` x ambiguity (asked
 *   again, the user says it precisely); only a fact asked about on its own is sure to be answered: in a message that
 *   asks about several, each after the first is answered with probability 1 - ambiguity (the rest go unanswered,
 *   to be asked again); an upfront user's opening states its facts the same way; an on-request user volunteers
 *   each needed fact in its opening with probability 0.3 - ambiguity (if positive);
 * - patience is counted in agent turns (commands and messages): past a third of it the user may stop waiting, with
 *   an even chance at patience turns and certainty at 5/3 x patience (then the goal is not met), so every step of patience moves
 *   outcomes over the 5-25 turns the built-in agent takes; a user asked more questions than its patience stops talking;
 * - tangent: a drifting user answers the first fact of a reply with small talk instead, with probability
 *   `tangentChance`; fragments: an answer is cut off before its value with probability `cutOff`, and facts past
 *   the first of an answer trickle in with the next reply.
 */
export const userModel = {
  expertiseTerm: { expert: 0, intermediate: 0.5, novice: 1 } as Record<UserProfile['persona']['expertise'], number>,
  volunteerAt: 0.3,
  vagueFirst: 0.5,
  tangentChance: 0.2,
  cutOff: 0.1,
  /** waited = clamp(patienceIntercept - patienceSlope x turns / patience): 1 up to turns = patience / 3, one half at turns = patience, 0 at 5/3 x patience. */
  patienceIntercept: 1.25,
  patienceSlope: 0.75,
};

/** Chance that a user whose patience is `patience` agent turns waits for an agent that took `turns`. */
export function waitChance(turns: number, patience: number): number {
  return Math.min(1, Math.max(0, userModel.patienceIntercept - (userModel.patienceSlope * turns) / patience));
}

/** The built-in simulated user: reveals hidden facts by keyword rules, shaped by its behaviour knobs; rates by rules. */
export function createRuleBasedUser(): UserRole {
  return { kind: 'builtin', label: ruleBasedUserLabel, begin: ({ env, profile, rng }) => asyncEpisode(new RuleBasedUserEpisode(env, profile, rng)) };
}

/** The rule-based user's episode with synchronous turns (it needs no model): what the dialogue-only plays drive. */
export interface RuleBasedUserTurns {
  open(): UserTurn;
  reply(agentMessage: string): UserTurn;
  rate(input: { steps: AtifStep[]; submitted: boolean; verifier?: VerifierOutcome }): { rating: UserRating; usage: ReturnType<typeof zeroUsage> };
}

export function beginRuleBasedUser(env: EnvironmentSpec, profile: UserProfile, rng: Rng): RuleBasedUserTurns {
  return new RuleBasedUserEpisode(env, profile, rng);
}

function asyncEpisode(e: RuleBasedUserTurns): UserEpisode {
  return { open: async () => e.open(), reply: async (m) => e.reply(m), rate: async (i) => e.rate(i) };
}

/** Chance that one answer about a fact tells its value. */
export function fullAnswerChance(profile: UserProfile): number {
  return profile.behavior.cooperativeness ** (1 + userModel.expertiseTerm[profile.persona.expertise]);
}

/** Chance that a fact after the first in one message (a question or an upfront opening) is answered at all. */
export function bundledAnswerChance(profile: UserProfile): number {
  return 1 - profile.behavior.ambiguity;
}

/** What one reply says so far, and the facts it tells. */
interface Said {
  parts: string[];
  disclosedNow: string[];
}

class RuleBasedUserEpisode implements RuleBasedUserTurns {
  private readonly facts: HiddenFact[];
  private readonly disclosed = new Set<string>();
  private readonly pending: HiddenFact[] = [];
  private readonly asked = new Map<string, number>();
  private agentMessages = 0;
  private repeats = 0;
  private offTopicStreak = 0;
  private stop: StopReason | undefined;
  private readonly patience: number;

  // Every draw comes from a stream named after what it decides, so one changed knob leaves the other draws alone.
  constructor(private readonly env: EnvironmentSpec, private readonly profile: UserProfile, private readonly rng: Rng) {
    this.facts = [...env.user.facts, ...profile.facts];
    const b = profile.behavior;
    this.patience = Math.max(1, Math.round(b.patience * (b.nonCollaborative.includes('impatience') ? 0.6 : 1)));
  }

  private get b(): UserProfile['behavior'] {
    return this.profile.behavior;
  }

  open(): UserTurn {
    const b = this.b;
    const request = this.env.user.request;
    const parts: string[] = [];
    if (b.verbosity >= 0.7) parts.push(`Hi, I'm ${this.profile.persona.name}.${this.profile.persona.background ? ` ${this.profile.persona.background}` : ''}`);
    // Ambiguity: a vague user drops the specifics of the request; a precise one volunteers some of what the agent needs.
    parts.push(b.ambiguity >= 0.7 ? `${request.split(/[,.?!]/)[0] ?? request}... you know, the usual thing.` : request);
    const volunteer = Math.max(0, userModel.volunteerAt - b.ambiguity);
    // An upfront user states its facts as one long answer: each in full as often as it would answer it, and past the
    // first only as often as a vague user keeps track of a long message.
    const full = fullAnswerChance(this.profile), bundled = bundledAnswerChance(this.profile);
    const disclose = b.disclosure === 'upfront'
      ? this.facts.filter((f, i) => this.rng.fork(`open/${f.id}`).chance(full * (i === 0 ? 1 : bundled)))
      : this.facts.filter((f) => this.env.user.requiredFacts.includes(f.id) && this.rng.fork(`open/${f.id}`).chance(volunteer));
    for (const f of disclose) this.disclosed.add(f.id);
    parts.push(...disclose.map((f) => f.text));
    if (b.nonCollaborative.includes('unavailable_request')) parts.push(unavailableAsk);
    return { message: this.style(parts.join(' ')), disclosedFacts: disclose.map((f) => f.id), usage: zeroUsage() };
  }

  reply(agentMessage: string): UserTurn {
    this.agentMessages++;
    const n = this.agentMessages;
    if (n > this.patience) return this.end('out_of_patience', 'I have spent enough time on this. I will do it myself.');
    const text = agentMessage.toLowerCase();
    if (/\b(done|finished|completed)\b/.test(text) && !text.includes('?')) return this.end('done', 'Great, thanks.');

    const matched = this.facts.filter((f) => f.keywords.some((k) => text.includes(k.toLowerCase())));
    const said: Said = { parts: [], disclosedNow: [] };
    if (this.b.nonCollaborative.includes('impatience')) said.parts.push('Quickly, please.');
    // Fragments: what did not fit in the last message trickles in now.
    for (const f of this.pending.splice(0)) this.tell(f, said);
    if (matched.length === 0) return this.offTopic(n, said);
    this.offTopicStreak = 0;

    const fresh = matched.filter((f) => !this.disclosed.has(f.id));
    const repeated = matched.filter((f) => this.disclosed.has(f.id));
    if (fresh.length === 0 && repeated.length > 0) return this.askedAgain(repeated, said);
    this.answer(this.factsAnswered(fresh, n, said), said);
    return this.turn(said);
  }

  /** Nothing asked about a fact: small talk or confusion, and after three such messages in a row the user stops. */
  private offTopic(n: number, said: Said): UserTurn {
    this.offTopicStreak++;
    if (this.offTopicStreak >= 3) return this.end('out_of_scope', 'I do not see how that is related to what I asked. Let us stop here.');
    said.parts.push(this.b.nonCollaborative.includes('tangent') && this.rng.fork(`tangent/${n}`).chance(0.5) ? this.rng.fork(`tangent-pick/${n}`).pick(tangents)
      : this.profile.persona.expertise === 'novice' ? 'I am not sure what you mean, I do not know the technical side.' : 'Not sure what you are asking.');
    return this.turn(said);
  }

  /** Only facts it told already: it repeats them in its tone, and a user who is not calm gives up the third time. */
  private askedAgain(repeated: HiddenFact[], said: Said): UserTurn {
    const b = this.b;
    this.repeats++;
    if (this.repeats >= 3 && b.errorReaction !== 'calm') return this.end('gave_up', `${toneOnRepeat[b.errorReaction]}I give up.`);
    said.parts.push(`${toneOnRepeat[b.errorReaction]}${repeated.map((f) => f.text).join(' ')}`);
    return this.turn(said);
  }

  /** Which of the facts asked about this reply takes up: fewer for a vague, fragmented or drifting user. */
  private factsAnswered(fresh: HiddenFact[], n: number, said: Said): HiddenFact[] {
    const b = this.b;
    // Asked about several facts at once, a user answers the first; each other one only as often as it keeps track.
    const bundled = bundledAnswerChance(this.profile);
    let answer = b.disclosure === 'incremental' ? fresh.slice(0, 1) : fresh.filter((f, i) => i === 0 || this.rng.fork(`bundle/${f.id}/${n}`).chance(bundled));
    if (b.nonCollaborative.includes('fragments') && answer.length > 1) {
      this.pending.push(...answer.slice(1));
      answer = answer.slice(0, 1);
    }
    // A drifting user talks about something else instead of the first fact.
    if (b.nonCollaborative.includes('tangent') && this.rng.fork(`drift/${n}`).chance(userModel.tangentChance)) {
      said.parts.push(this.rng.fork(`tangent-pick/${n}`).pick(tangents));
      answer = answer.slice(1);
    }
    return answer;
  }

  /** Each fact in full as often as the user answers in full; otherwise a partial, vague or cut-off answer. */
  private answer(facts: HiddenFact[], said: Said): void {
    const b = this.b;
    const full = fullAnswerChance(this.profile);
    for (const f of facts) {
      const time = (this.asked.get(f.id) ?? 0) + 1;
      this.asked.set(f.id, time);
      // A partial answer names the topic but not the value, so the agent has to ask again; so does a vague first one.
      const vague = time === 1 && this.rng.fork(`vague/${f.id}`).chance(userModel.vagueFirst * b.ambiguity);
      const cut = b.nonCollaborative.includes('fragments') && this.rng.fork(`cut/${f.id}/${time}`).chance(userModel.cutOff);
      if (this.rng.fork(`answer/${f.id}/${time}`).chance(full) && !vague && !cut) {
        this.tell(f, said);
      } else {
        said.parts.push(vague ? `Oh, the ${f.keywords[0] ?? 'details'}... the usual one, you know what I mean.`
          : cut ? `the ${f.keywords[0] ?? 'details'} is uh` : `Hmm, about the ${f.keywords[0] ?? 'details'}... I do not remember exactly right now.`);
      }
    }
  }

  private tell(f: HiddenFact, said: Said): void {
    this.disclosed.add(f.id);
    said.disclosedNow.push(f.id);
    said.parts.push(f.text);
  }

  private turn(said: Said): UserTurn {
    return { message: this.style(said.parts.join(' ')), disclosedFacts: said.disclosedNow, usage: zeroUsage() };
  }

  rate(input: { steps: AtifStep[]; submitted: boolean; verifier?: VerifierOutcome }): { rating: UserRating; usage: ReturnType<typeof zeroUsage> } {
    const b = this.b;
    const passed = (input.verifier?.reward ?? 0) >= 1;
    const agentText = agentWords(input.steps);
    const contradicted = this.facts.filter((f) => this.env.user.requiredFacts.includes(f.id) && contradicts(f, this.facts, agentText)).map((f) => f.id);
    const turns = input.steps.filter((s) => s.source === 'agent').length;
    // Patience is counted in agent turns: past a third of it the user may have stopped waiting, whatever the result.
    const waited = this.rng.fork('waited').chance(waitChance(turns, this.patience));
    const goalMet = input.submitted && passed && contradicted.length === 0 && waited;
    const reasons: string[] = [];
    let score = 5;
    if (!goalMet) {
      score -= 2;
      reasons.push(!input.submitted ? 'the task was not handed in' : !waited ? `it took ${turns} turns and I stopped waiting (patience ${this.patience})` : !passed ? 'the result is wrong' : `it went against what I said about ${contradicted.join(', ')}`);
    }
    if (waited && turns > this.patience / 3) { score -= 1; reasons.push(`it took ${turns} turns`); }
    if (this.repeats > 0) { score -= Math.min(2, this.repeats); reasons.push(`I had to repeat myself ${this.repeats} time(s)`); }
    if (!goalMet && b.errorReaction !== 'calm') { score -= 1; reasons.push(b.errorReaction === 'accusatory' ? 'and that is not acceptable' : 'which is frustrating'); }
    if (b.nonCollaborative.includes('unavailable_request') && !/\b(can ?not|can't|unable)\b/i.test(agentText)) { score -= 1; reasons.push('my email request was ignored'); }
    const satisfaction = Math.min(5, Math.max(1, score));
    const stopReason: StopReason = this.stop ?? (!waited ? 'out_of_patience' : input.submitted ? 'agent_submitted' : 'gave_up');
    const reason = goalMet ? `Goal met${reasons.length ? `, but ${reasons.join('; ')}` : ''}.` : `Goal not met: ${reasons.join('; ')}.`;
    return { rating: { goalMet, satisfaction, reason, stopReason }, usage: zeroUsage() };
  }

  private end(stop: StopReason, message: string): UserTurn {
    this.stop = stop;
    return { message: this.style(message), stop, disclosedFacts: [], usage: zeroUsage() };
  }

  /** Low verbosity trims pleasantries; the fragments mode writes in lower case without full stops. */
  private style(message: string): string {
    let m = this.b.verbosity < 0.3 ? message.replace(/^(Hi|Great|Sure|Hmm),?\s*/i, '') : message;
    if (this.b.nonCollaborative.includes('fragments')) m = m.replace(/\.(\s|$)/g, '$1').replace(/^\w/, (c) => c.toLowerCase());
    return m.trim();
  }
}

/** Everything the agent said to the user or in its submit summary. */
function agentWords(steps: AtifStep[]): string {
  const out: string[] = [];
  for (const s of steps) {
    if (s.source !== 'agent') continue;
    if (s.message) out.push(s.message);
    for (const c of s.tool_calls ?? []) {
      const a = c.arguments as { text?: unknown; summary?: unknown };
      if (c.function_name === 'message_user' && typeof a.text === 'string') out.push(a.text);
      if (c.function_name === 'submit' && typeof a.summary === 'string') out.push(a.summary);
    }
  }
  return out.join('\n');
}

type Shape = 'path' | 'upper' | 'time' | 'number' | 'other';
const shapeOf = (v: string): Shape =>
  /\/|\.[a-z]{2,4}$/.test(v) ? 'path' : /^[A-Z]{3,}$/.test(v) ? 'upper' : /^\d\d:\d\d$/.test(v) ? 'time' : /^\d+$/.test(v) ? 'number' : 'other';

/**
 * A fact is contradicted when the agent states, in backticks, a value of the same shape as the fact's value that
 * is no value the user ever gave (e.g. it reports writing `out/report.csv` when the user asked for another path).
 */
function contradicts(fact: HiddenFact, all: HiddenFact[], agentText: string): boolean {
  // Numbers and plain words are too common in a summary to count; paths count only within the same folder.
  const mine = backticked(fact.text).filter((v) => ['path', 'upper', 'time'].includes(shapeOf(v)));
  if (mine.length === 0) return false;
  const known = new Set(all.flatMap((f) => backticked(f.text)));
  const folder = (p: string): string => p.replace(/\/?[^/]*$/, '');
  const sameKind = (v: string): boolean => mine.some((m) => shapeOf(m) === shapeOf(v) && (shapeOf(v) !== 'path' || folder(v) === folder(m)));
  return backticked(agentText).some((v) => sameKind(v) && !known.has(v));
}
