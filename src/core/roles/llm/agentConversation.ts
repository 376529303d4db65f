import { ContextWindowExceeded, isContextWindowExceeded, isToolsUnsupported } from '../../ports/model.js';
import type { ChatMessage, ChatModel, ChatResponse, ToolDefinition } from '../../ports/model.js';
import type { AgentConfig } from '../../spec/agent.js';
import { agentTools } from '../agentTools.js';
import type { AgentRole, AgentTask } from '../ports.js';
import { agentSystemPrompt } from './agentPrompt.js';
import { agentProtocol, type AgentProtocol, type ToolCallFormat } from './agentProtocol.js';
import { defaultReserve, estimateTokens, fitToWindow, initialCharsPerToken, type PromptNotes } from './contextFit.js';

/** What an agent episode begins with: the task, the agent's config, the rollout's random stream. */
export type AgentEpisodeStart = Parameters<AgentRole['begin']>[0];

/** The model's reply, with notes on what fitting the window cut from the prompt it answered. */
export interface AgentReply {
  res: ChatResponse;
  notes?: PromptNotes;
}

/** One episode's conversation with the model: its history, the tool-call protocol in use, its seed, the window. */
export interface AgentConversation {
  readonly model: ChatModel;
  /** The format asked for; `protocol` is the one in use (a server without a tools API moves it to Hermes). */
  readonly configured: ToolCallFormat;
  readonly task: AgentTask;
  readonly config: AgentConfig;
  readonly tools: ToolDefinition[];
  readonly toolNames: string[];
  readonly messages: ChatMessage[];
  readonly seed: number;
  protocol: AgentProtocol;
  // Context-window state: the window (config, server, or a refusal that names it) and the calibrated size estimate.
  window: number | undefined;
  windowKnown: boolean;
  charsPerToken: number;
}

export function startConversation(model: ChatModel, configured: ToolCallFormat, { task, config, rng }: AgentEpisodeStart): AgentConversation {
  const tools = task.tools.length > 0 ? task.tools : agentTools;
  const toolNames = tools.map((t) => t.name);
  const protocol: AgentProtocol = agentProtocol(configured);
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(task, config, tools, protocol) }];
  // One seed per episode, drawn from the rollout's stream: servers that honour it answer reproducibly, and it
  // is part of the cache key, so replays of different rollouts never collide.
  const seed = rng.int(0, 2 ** 31 - 1);
  return { model, configured, task, config, tools, toolNames, messages, seed, protocol, window: undefined, windowKnown: false, charsPerToken: initialCharsPerToken };
}

/** The model's next reply; a refusal of the tools API or of the prompt's length is recovered from once. */
export async function askModel(conv: AgentConversation, signal: AbortSignal | undefined): Promise<AgentReply> {
  if (!conv.windowKnown) {
    conv.windowKnown = true;
    conv.window = await conv.model.contextWindow?.(signal);
  }
  // Fitted outside the try: a prompt that cannot fit by our own estimate fails here, once. Retrying it with a
  // larger estimate could never fit and would only overstate its size in the error.
  const view = fitted(conv);
  try {
    return await send(conv, view, signal);
  } catch (err) {
    if (isToolsUnsupported(err) && conv.protocol.apiTools && conv.configured !== 'native') {
      // The server has no tool parser: describe the tools in the prompt, Hermes style, for the rest of the episode.
      conv.protocol = agentProtocol('hermes');
      conv.messages[0] = { role: 'system', content: systemPrompt(conv.task, conv.config, conv.tools, conv.protocol) };
      return send(conv, fitted(conv), signal);
    }
    if (isContextWindowExceeded(err) && (err.contextWindow !== undefined || conv.window !== undefined)) {
      // The server counted more than the estimate: learn the window it named and, when it says how many tokens the
      // prompt had, size prompts by that count; else guess more tokens a character, once, if the window was no news.
      const newWindow = err.contextWindow !== undefined && err.contextWindow !== conv.window;
      if (newWindow) conv.window = err.contextWindow;
      if (err.promptTokens !== undefined) conv.charsPerToken = promptChars(conv, view) / err.promptTokens;
      else if (!newWindow) conv.charsPerToken *= 0.7;
      return send(conv, fitted(conv), signal);
    }
    throw err;
  }
}

function systemPrompt(task: AgentTask, config: AgentConfig, tools: ToolDefinition[], p: AgentProtocol): string {
  return [agentSystemPrompt(task, config), p.systemSection(tools)].filter(Boolean).join('\n\n');
}

function toolsChars(tools: ToolDefinition[], p: AgentProtocol): number {
  return p.apiTools ? JSON.stringify(tools).length : 0;
}

/** A request's size in the characters the estimate counts (messages and the tools API's definitions). */
function promptChars(conv: AgentConversation, view: FittedPrompt): number {
  return estimateTokens(view.messages, 1) + toolsChars(conv.tools, conv.protocol);
}

/** The messages of one request, fitted to the window, with notes on what fitting cut. */
interface FittedPrompt {
  messages: ChatMessage[];
  notes?: PromptNotes;
}

/** The request's messages fitted to the window, with notes on what was cut; throws when nothing fits. */
function fitted(conv: AgentConversation): FittedPrompt {
  const { window, messages, charsPerToken } = conv;
  if (window === undefined) return { messages };
  const reserve = defaultReserve(window, conv.model.settings?.maxTokens) + Math.ceil(toolsChars(conv.tools, conv.protocol) / charsPerToken);
  const fit = fitToWindow(messages, { window, reserve, charsPerToken });
  if (!fit.ok) {
    throw new ContextWindowExceeded(
      `the agent's conversation with ${conv.model.label} needs about ${fit.estimatedPromptTokens} tokens even with old turns left out and results cut; the model's context window of ${window} tokens leaves ${fit.budgetTokens} for the prompt`,
    );
  }
  const cut = fit.notes.cutResults || fit.notes.elidedTurns;
  return { messages: fit.messages, ...(cut ? { notes: fit.notes } : {}) };
}

function send(conv: AgentConversation, view: FittedPrompt, signal: AbortSignal | undefined): Promise<AgentReply> {
  return conv.model
    .complete({ messages: view.messages, ...(conv.protocol.apiTools ? { tools: conv.tools, toolChoice: 'auto' as const } : {}), seed: conv.seed, stream: true, ...(signal ? { signal } : {}) })
    .then((res) => {
      // What the server counted calibrates the next estimate (conservatively: a tenth more tokens).
      if (res.usage.promptTokens > 0) {
        conv.charsPerToken = Math.min(6, Math.max(1.5, (promptChars(conv, view) / res.usage.promptTokens) * 0.9));
      }
      return { res, ...(view.notes ? { notes: view.notes } : {}) };
    });
}
