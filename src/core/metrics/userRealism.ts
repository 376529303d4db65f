import type { RolloutRecord } from '../rollout/trajectory.js';

export interface UserRealism {
  meanFirstMessageChars: number;
  /** Agent questions (message_user calls) per rollout. */
  clarificationRate: number;
  /** Mean position (0..1) in the dialogue of the first disclosed fact; null when none was disclosed. */
  meanDisclosureTiming: number | null;
  /** Share of user messages that read as frustrated (exclamations, complaints). */
  frustrationRate: number;
  stopReasons: Record<string, number>;
  satisfaction: Record<string, number>;
  /** distinct-2 over all user messages: low values flag stylistically uniform simulators (Sim2Real). */
  distinct2: number;
  /** True when every rating is 4 or 5: simulated feedback that is uniformly positive is suspect. */
  uniformlyPositive: boolean;
}

const frustrated = /(!{2,}|\b(already told you|again\?|seriously|this is taking|frustrat|annoy|useless|come on)\b)/i;

export function userRealism(records: RolloutRecord[]): UserRealism {
  const stopReasons: Record<string, number> = {};
  const satisfaction: Record<string, number> = {};
  let firstChars = 0, questions = 0, userMsgs = 0, frustratedMsgs = 0;
  const timings: number[] = [];
  const bigrams = new Set<string>();
  let bigramCount = 0;
  for (const r of records) {
    const userSteps = r.steps.filter((s) => s.source === 'user');
    firstChars += userSteps[0]?.message.length ?? 0;
    questions += r.steps.reduce((n, s) => n + (s.tool_calls?.filter((c) => c.function_name === 'message_user').length ?? 0), 0);
    const firstDisclosure = r.steps.findIndex((s) => (s.extra?.disclosedFacts?.length ?? 0) > 0);
    if (firstDisclosure >= 0 && r.steps.length > 1) timings.push(firstDisclosure / (r.steps.length - 1));
    for (const s of userSteps) {
      userMsgs++;
      if (frustrated.test(s.message)) frustratedMsgs++;
      const words = s.message.toLowerCase().split(/\s+/).filter(Boolean);
      for (let i = 0; i + 1 < words.length; i++) {
        bigrams.add(`${words[i]} ${words[i + 1]}`);
        bigramCount++;
      }
    }
    if (r.userRating) {
      stopReasons[r.userRating.stopReason] = (stopReasons[r.userRating.stopReason] ?? 0) + 1;
      const k = String(r.userRating.satisfaction);
      satisfaction[k] = (satisfaction[k] ?? 0) + 1;
    }
  }
  const n = Math.max(1, records.length);
  const rated = Object.values(satisfaction).reduce((a, b) => a + b, 0);
  return {
    meanFirstMessageChars: firstChars / n,
    clarificationRate: questions / n,
    meanDisclosureTiming: timings.length ? timings.reduce((a, b) => a + b, 0) / timings.length : null,
    frustrationRate: userMsgs ? frustratedMsgs / userMsgs : 0,
    stopReasons,
    satisfaction,
    distinct2: bigramCount ? bigrams.size / bigramCount : 0,
    uniformlyPositive: rated > 0 && (satisfaction['4'] ?? 0) + (satisfaction['5'] ?? 0) === rated,
  };
}
