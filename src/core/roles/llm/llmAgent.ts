import type { ChatMessage, ChatModel, ChatResponse, ToolCall } from '../../ports/model.js';
import { parseAgentToolCall } from '../parseToolCall.js';
import type { AgentEpisode, AgentRole, AgentToolCall, AgentTurn, ToolResult } from '../ports.js';
import { agentOpeningMessage } from './agentPrompt.js';
import { askModel, startConversation, type AgentConversation } from './agentConversation.js';
import type { ReadReply, ToolCallFormat } from './agentProtocol.js';
import type { PromptNotes } from './contextFit.js';
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
    begin(start) {
      return agentEpisode(startConversation(model, configured, start), maxResult);
    },
  };
}

/** Where an episode stands between turns: the calls of the last turn, which the next one must answer. */
interface EpisodeProgress {
  started: boolean;
  turnNo: number;
  pending: ToolCall[];
  pendingNative: boolean;
}

/** The episode the engine drives: each turn answers the last turn's calls, asks the model, and reads its reply. */
function agentEpisode(conv: AgentConversation, maxResult: number): AgentEpisode {
  const progress: EpisodeProgress = { started: false, turnNo: 0, pending: [], pendingNative: true };
  return {
    async next({ results, userMessage, signal }) {
      const resultCuts = appendTurnInput(conv, progress, results, userMessage, maxResult);
      const { res, notes } = await askModel(conv, signal);
      const promptNotes = mergeNotes(notes, resultCuts, conv.window);
      const idPrefix = `t${++progress.turnNo}_`;
      const read = conv.protocol.read(res, idPrefix, conv.toolNames);
      const { pending: answered, calls } = agentCalls(read, idPrefix);
      progress.pending = answered;
      progress.pendingNative = read.native;
      // The history holds what the model wrote: native calls as tool_calls, text calls inside its content.
      conv.messages.push(assistantMessage(res, read));
      return agentTurn(res, read, calls, promptNotes);
    },
  };
}

/** Adds the turn's input to the history: the task first, then the results of the last turn's calls; returns the cuts. */
function appendTurnInput(conv: AgentConversation, progress: EpisodeProgress, results: ToolResult[], userMessage: string | undefined, maxResult: number): NonNullable<PromptNotes['cutResults']> {
  const resultCuts: NonNullable<PromptNotes['cutResults']> = [];
  if (!progress.started) {
    progress.started = true;
    conv.messages.push({ role: 'user', content: agentOpeningMessage(conv.task, userMessage) });
  } else {
    // Every call of the previous turn needs an answer, or the server refuses the conversation.
    const byId = new Map(results.map((r) => [r.callId, r.content]));
    const contentOf = (id: string): string => {
      const full = byId.get(id) ?? '(no result: the call was not executed)';
      if (full.length > maxResult) resultCuts.push({ callId: id, fromChars: full.length, toChars: maxResult });
      return cutMiddle(full, maxResult);
    };
    conv.messages.push(...conv.protocol.results(progress.pending, contentOf, progress.pendingNative));
    if (userMessage) conv.messages.push({ role: 'user', content: userMessage });
  }
  return resultCuts;
}

function assistantMessage(res: ChatResponse, read: ReadReply): ChatMessage {
  const reasoning = res.message.reasoning;
  return {
    role: 'assistant',
    content: res.message.content,
    ...(read.native && read.calls.length > 0 ? { toolCalls: read.calls } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
}

function agentTurn(res: ChatResponse, read: ReadReply, calls: AgentToolCall[], promptNotes: PromptNotes | undefined): AgentTurn {
  const reasoning = res.message.reasoning;
  return {
    message: read.message && read.message.trim() !== '' ? read.message : null,
    ...(reasoning ? { reasoning } : {}),
    calls,
    usage: res.usage,
    modelName: res.model,
    ...(promptNotes ? { promptNotes } : {}),
    ...(res.tokens ? { tokens: res.tokens } : {}),
  };
}
