import type { ChatMessage, ChatModel, ToolCall } from '../../ports/model.js';
import { agentTools } from '../agentTools.js';
import { parseAgentToolCall } from '../parseToolCall.js';
import type { AgentEpisode, AgentRole, AgentTurn } from '../ports.js';
import { agentOpeningMessage, agentSystemPrompt } from './agentPrompt.js';
import { cutMiddle } from './transcript.js';

/**
 * The LLM agent: one conversation per episode. Calls are streamed so a cancelled rollout stops the generation at
 * once; malformed tool calls come back as `invalid` calls, whose error the engine returns as the tool result.
 */
export function createLlmAgent(model: ChatModel, options: { maxToolResultChars?: number } = {}): AgentRole {
  // Command output is capped per call by the sandbox, but thirty capped outputs still overflow a context window.
  const maxResult = options.maxToolResultChars ?? 16_000;
  return {
    kind: 'llm',
    label: model.label,
    ...(model.settings ? { settings: model.settings } : {}),
    begin({ task, config, rng }) {
      const messages: ChatMessage[] = [{ role: 'system', content: agentSystemPrompt(task, config) }];
      const tools = task.tools.length > 0 ? task.tools : agentTools;
      // One seed per episode, drawn from the rollout's stream: servers that honour it answer reproducibly, and it
      // is part of the cache key, so replays of different rollouts never collide.
      const seed = rng.int(0, 2 ** 31 - 1);
      let pending: ToolCall[] = [];
      let started = false;
      const episode: AgentEpisode = {
        async next({ results, userMessage, signal }) {
          if (!started) {
            started = true;
            messages.push({ role: 'user', content: agentOpeningMessage(task, userMessage) });
          } else {
            // Every call of the previous turn needs an answer, or the server refuses the conversation.
            const byId = new Map(results.map((r) => [r.callId, r.content]));
            for (const call of pending) {
              const content = byId.get(call.id) ?? '(no result: the call was not executed)';
              messages.push({ role: 'tool', toolCallId: call.id, content: cutMiddle(content, maxResult) });
            }
            if (userMessage) messages.push({ role: 'user', content: userMessage });
          }
          const res = await model.complete({ messages, tools, toolChoice: 'auto', seed, stream: true, ...(signal ? { signal } : {}) });
          pending = res.message.toolCalls;
          const reasoning = res.message.reasoning;
          messages.push({ role: 'assistant', content: res.message.content, ...(pending.length > 0 ? { toolCalls: pending } : {}), ...(reasoning ? { reasoning } : {}) });
          const turn: AgentTurn = {
            message: res.message.content && res.message.content.trim() !== '' ? res.message.content : null,
            ...(reasoning ? { reasoning } : {}),
            calls: pending.map(parseAgentToolCall),
            usage: res.usage,
            modelName: res.model,
          };
          return turn;
        },
      };
      return episode;
    },
  };
}
