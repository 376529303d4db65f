// Dialogue-only plays of the built-in agent against the rule-based user, with no sandbox and no verifier: a listing
// names the workspace's files, a look at a file shows its first lines, every other command prints "ok". What a play
// yields is whether the agent was told every fact the task needs and whether the user waited for it: the user's
// share in success, in well under a millisecond per play. The user evolver estimates its moves' effects with them
// (moveEffects.ts) and the unit tests of user moves use them; the effect on real success is what the sandboxed
// calibration bench and the loop's paired plays measure.
import { rolloutRng } from '../../core/ports/rng.js';
import type { AgentGenes } from '../../core/spec/agent.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import type { UserProfile } from '../../core/spec/user.js';
import { agentTools } from '../../core/roles/agentTools.js';
import type { AtifStep } from '../../core/rollout/trajectory.js';
import { beginHeuristicAgent } from '../agent/heuristicAgent.js';
import { beginRuleBasedUser } from './ruleBasedUser.js';

export interface DialogueOutcome {
  told: boolean;
  waited: boolean;
  turns: number;
  questions: number;
  /** Replies to a question, and those that disclosed a fact (the realism indicator's disclosure rate). */
  replies: number;
  disclosing: number;
  /** The user's stop reason when it ended the dialogue or stopped waiting. */
  stop?: string;
}

const maxTurns = 30;

/** One dialogue: as the engine plays it (same rng streams), with commands answered by an empty success. */
export function playDialogue(env: EnvironmentSpec, user: UserProfile, genes: AgentGenes, runSeed: number, rolloutId: string): DialogueOutcome {
  const rng = rolloutRng(runSeed, rolloutId);
  const ue = beginRuleBasedUser(env, user, rng.fork('user'));
  const opening = ue.open();
  const told = new Set(opening.disclosedFacts);
  const agent = beginHeuristicAgent({ instruction: env.instruction, family: env.family, workdir: env.sandbox.workdir, tools: agentTools }, genes, rng.fork('agent'));
  const steps: AtifStep[] = [{ step_id: 0, timestamp: '', source: 'user', message: opening.message }];
  let results: { callId: string; content: string }[] = [];
  let userMessage: string | undefined = opening.message;
  let questions = 0, disclosing = 0;
  let stop: string | undefined;
  let submitted = false;
  for (let t = 0; t < maxTurns && !stop && !submitted; t++) {
    const turn = agent.next({ results, ...(userMessage !== undefined ? { userMessage } : {}) });
    userMessage = undefined;
    const call = turn.calls[0]!;
    steps.push({ step_id: steps.length, timestamp: '', source: 'agent', message: turn.message ?? '', tool_calls: [{ tool_call_id: call.id, function_name: call.name, arguments: call as never }] });
    if (call.name === 'message_user' && 'text' in call) {
      questions++;
      const r = ue.reply(call.text);
      for (const f of r.disclosedFacts) told.add(f);
      if (r.disclosedFacts.length > 0) disclosing++;
      steps.push({ step_id: steps.length, timestamp: '', source: 'user', message: r.message });
      if (r.stop) stop = r.stop;
      results = [{ callId: call.id, content: r.message }];
    } else if (call.name === 'submit') {
      submitted = true;
    } else {
      results = [{ callId: call.id, content: `exit code 0\n${commandOutput(env, 'command' in call ? String(call.command) : '')}` }];
    }
  }
  const rated = ue.rate({ steps, submitted, verifier: { exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1, reward: 1, detail: {} } });
  const outOfPatience = rated.rating.stopReason === 'out_of_patience';
  return {
    told: env.user.requiredFacts.every((id) => told.has(id)),
    waited: !outOfPatience && !stop,
    turns: steps.filter((s) => s.source === 'agent').length,
    questions,
    replies: questions,
    disclosing,
    ...(stop ? { stop } : outOfPatience ? { stop: 'out_of_patience' } : {}),
  };
}

/** A listing names every file of the workspace; a look at a file shows its first lines; anything else prints "ok". */
function commandOutput(env: EnvironmentSpec, command: string): string {
  if (/^(ls|find)\b/.test(command)) return env.sandbox.files.map((f) => f.path).join('\n');
  const head = /^head -n (\d+) '?([^' ]+)'?/.exec(command);
  const file = head ? env.sandbox.files.find((f) => f.path === head[2]) : undefined;
  if (head && file && typeof file.content === 'string') return file.content.split('\n').slice(0, Number(head[1])).join('\n');
  return 'ok';
}
