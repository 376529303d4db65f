import { ContextWindowExceeded, isContextWindowExceeded, isToolsUnsupported } from '../../ports/model.js';
import type { ChatMessage, ChatModel, ChatResponse, ToolCall } from '../../ports/model.js';
import { parseAgentToolCall } from '../parseToolCall.js';
import { agentTools } from '../agentTools.js';
import type { AgentEpisode, AgentRole, AgentToolCall, AgentTurn } from '../ports.js';
import { agentOpeningMessage, agentSystemPrompt } from './agentPrompt.js';
import { agentProtocol, type AgentProtocol, type ReadReply, type ToolCallFormat } from './agentProtocol.js';
import { defaultReserve, estimateTokens, fitToWindow, initialCharsPerToken, type PromptNotes } from './contextFit.js';
import { cutMiddle } from './transcript.js';

export interface LlmAgentOptions {
  maxToolResultChars?: number;
  /** How tool calls are exchanged; defaults to the model's configured `toolCallFormat`, else auto. */
  toolCallFormat?: ToolCallFormat;
}

/** A turn's calls as the engine sees them: parsed native or text calls, and malformed ones with their raw text. */
function agentCalls(read: ReadReply, idPrefix: string): { pending: ToolCall[]; calls: AgentToolCall[] } {
  const unreadable = read.malformed.map((m, i) => ({ id: `${idPrefix}x${i}`, name: 'unreadable_tool_call', arguments: m.raw, error: m.error }));
  return {
    pending: [...read.calls, ...unreadable],
    calls: [...read.calls.map(parseAgentToolCall), ...unreadable.map((u) => ({ id: u.id, name: u.name, invalid: u.error, rawArguments: u.arguments }))],
  };
}

/** What shaped this turn's prompt: results cut when they came in, and what fitting the window cut or left out. */
function mergeNotes(fit: PromptNotes | undefined, resultCuts: NonNullable<PromptNotes['cutResults']>, window: number | undefined): PromptNotes | undefined {
  if (!fit && resultCuts.length === 0) return undefined;
  const cuts = [...resultCuts, ...(fit?.cutResults ?? [])];
  return { contextWindow: fit?.contextWindow ?? window ?? 0, estimatedPromptTokens: fit?.estimatedPromptTokens ?? 0, ...(cuts.length ? { cutResults: cuts } : {}), ...(fit?.elidedTurns ? { elidedTurns: fit.elidedTurns } : {}) };
}

/**
 * The LLM agent: one conversation per episode. Calls are streamed so a cancelled rollout stops the generation at
 * once; malformed tool calls come back as `invalid` calls, whose error the engine returns as the tool result.
 * Tool calls go through the tools API first; a server that refuses it gets the tools described in the prompt.
 */
export function createLlmAgent(model: ChatModel, options: LlmAgentOptions = {}): AgentRole {
  // Command output is capped per call by the sandbox, but thirty capped outputs still overflow a context window.
  const maxResult = options.maxToolResultChars ?? 16_000;
  const configured = options.toolCallFormat ?? (model.settings?.toolCallFormat as ToolCallFormat | undefined) ?? 'auto';
  return {
    kind: 'llm',
    // Read through: the model behind the role can change between generations (a trainer hook's checkpoint).
    get label() {
      return model.label;
    },
    get settings() {
      return model.settings;
    },
    begin({ task, config, rng }) {
      const tools = task.tools.length > 0 ? task.tools : agentTools;
      const toolNames = tools.map((t) => t.name);
      let protocol: AgentProtocol = agentProtocol(configured);
      const systemPrompt = (p: AgentProtocol): string => [agentSystemPrompt(task, config), p.systemSection(tools)].filter(Boolean).join('\n\n');
      const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(protocol) }];
      // One seed per episode, drawn from the rollout's stream: servers that honour it answer reproducibly, and it
      // is part of the cache key, so replays of different rollouts never collide.
      const seed = rng.int(0, 2 ** 31 - 1);
      let pending: ToolCall[] = [];
      let pendingNative = true;
      let turnNo = 0;
      let started = false;

      // Context-window state: the window (config, server, or a refusal that names it) and the calibrated size estimate.
      let window: number | undefined;
      let windowKnown = false;
      let charsPerToken = initialCharsPerToken;
      const toolsChars = (p: AgentProtocol): number => (p.apiTools ? JSON.stringify(tools).length : 0);

      /** The request's messages fitted to the window, with notes on what was cut; throws when nothing fits. */
      const fitted = (): { messages: ChatMessage[]; notes?: PromptNotes } => {
        if (window === undefined) return { messages };
        const reserve = defaultReserve(window, model.settings?.maxTokens) + Math.ceil(toolsChars(protocol) / charsPerToken);
        const fit = fitToWindow(messages, { window, reserve, charsPerToken });
        if (!fit.ok) {
          throw new ContextWindowExceeded(`the conversation needs about ${fit.estimatedPromptTokens} tokens even with old turns left out and results cut; the model's context window leaves ${fit.budgetTokens} for the prompt`);
        }
        const cut = fit.notes.cutResults || fit.notes.elidedTurns;
        return { messages: fit.messages, ...(cut ? { notes: fit.notes } : {}) };
      };

      const send = (signal: AbortSignal | undefined): Promise<{ res: ChatResponse; notes?: PromptNotes }> => {
        const view = fitted();
        return model
          .complete({ messages: view.messages, ...(protocol.apiTools ? { tools, toolChoice: 'auto' as const } : {}), seed, stream: true, ...(signal ? { signal } : {}) })
          .then((res) => {
            // What the server counted calibrates the next estimate (conservatively: a tenth more tokens).
            if (res.usage.promptTokens > 0) {
              const chars = estimateTokens(view.messages, 1) + toolsChars(protocol);
              charsPerToken = Math.min(6, Math.max(1.5, (chars / res.usage.promptTokens) * 0.9));
            }
            return { res, ...(view.notes ? { notes: view.notes } : {}) };
          });
      };

      const ask = async (signal: AbortSignal | undefined): Promise<{ res: ChatResponse; notes?: PromptNotes }> => {
        if (!windowKnown) {
          windowKnown = true;
          window = await model.contextWindow?.(signal);
        }
        try {
          return await send(signal);
        } catch (err) {
          if (isToolsUnsupported(err) && protocol.apiTools && configured !== 'native') {
            // The server has no tool parser: describe the tools in the prompt, Hermes style, for the rest of the episode.
            protocol = agentProtocol('hermes');
            messages[0] = { role: 'system', content: systemPrompt(protocol) };
            return send(signal);
          }
          if (isContextWindowExceeded(err) && (err.contextWindow !== undefined || window !== undefined)) {
            // The server counted more than the estimate: learn the window it named, or estimate more tokens, once.
            if (err.contextWindow !== undefined && err.contextWindow !== window) window = err.contextWindow;
            else charsPerToken *= 0.7;
            return send(signal);
          }
          throw err;
        }
      };

      const episode: AgentEpisode = {
        async next({ results, userMessage, signal }) {
          const resultCuts: NonNullable<PromptNotes['cutResults']> = [];
          if (!started) {
            started = true;
            messages.push({ role: 'user', content: agentOpeningMessage(task, userMessage) });
          } else {
            // Every call of the previous turn needs an answer, or the server refuses the conversation.
            const byId = new Map(results.map((r) => [r.callId, r.content]));
            const contentOf = (id: string): string => {
              const full = byId.get(id) ?? '(no result: the call was not executed)';
              if (full.length > maxResult) resultCuts.push({ callId: id, fromChars: full.length, toChars: maxResult });
              return cutMiddle(full, maxResult);
            };
            messages.push(...protocol.results(pending, contentOf, pendingNative));
            if (userMessage) messages.push({ role: 'user', content: userMessage });
          }
          const { res, notes } = await ask(signal);
          const promptNotes = mergeNotes(notes, resultCuts, window);
          const idPrefix = `t${++turnNo}_`;
          const read = protocol.read(res, idPrefix, toolNames);
          const { pending: answered, calls } = agentCalls(read, idPrefix);
          pending = answered;
          pendingNative = read.native;
          const reasoning = res.message.reasoning;
          // The history holds what the model wrote: native calls as tool_calls, text calls inside its content.
          messages.push({
            role: 'assistant',
            content: res.message.content,
            ...(read.native && read.calls.length > 0 ? { toolCalls: read.calls } : {}),
            ...(reasoning ? { reasoning } : {}),
          });
          const turn: AgentTurn = {
            message: read.message && read.message.trim() !== '' ? read.message : null,
            ...(reasoning ? { reasoning } : {}),
            calls,
            usage: res.usage,
            modelName: res.model,
            ...(promptNotes ? { promptNotes } : {}),
            ...(res.tokens ? { tokens: res.tokens } : {}),
          };
          return turn;
        },
      };
      return episode;
    },
  };
}
