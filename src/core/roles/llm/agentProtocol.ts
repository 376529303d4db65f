import type { ChatMessage, ChatResponse, ToolCall, ToolDefinition } from '../../ports/model.js';
import { findTextToolCalls, textToolFormats, type TextToolFormat } from './textToolCalls.js';

/** How the agent and the model exchange tool calls (the role's `toolCallFormat`). */
export type ToolCallFormat = 'auto' | 'native' | TextToolFormat | 'text';

export interface ReadReply {
  calls: ToolCall[];
  /** Calls the agent could not read: recorded as a malformed turn with the raw text. */
  malformed: { raw: string; error: string }[];
  /** What the model said besides its calls (a message to the user when there are none). */
  message: string | null;
  /** The calls came through the tools API, so their results go back as `tool` messages. */
  native: boolean;
}

/**
 * One way of talking tools: native (the tools API), a text format the model writes (tools described in the system
 * prompt), or the fenced-block text protocol (no tools at all, as Terminus does for models without tool calling).
 */
export interface AgentProtocol {
  readonly format: ToolCallFormat;
  /** Whether tools go through the API. */
  readonly apiTools: boolean;
  /** What the system prompt adds (the tools and how to call them), if anything. */
  systemSection(tools: readonly ToolDefinition[]): string | undefined;
  read(res: ChatResponse, idPrefix: string, knownTools: readonly string[]): ReadReply;
  /** The messages that answer a turn's calls, in call order. */
  results(calls: readonly ToolCall[], contentOf: (callId: string) => string, native: boolean): ChatMessage[];
}

export function agentProtocol(format: ToolCallFormat): AgentProtocol {
  if (format === 'text') return fencedProtocol;
  if (format === 'hermes' || format === 'mistral' || format === 'json') return textFormatProtocol(format);
  return nativeProtocol(format);
}

function nativeProtocol(format: 'auto' | 'native'): AgentProtocol {
  return {
    format,
    apiTools: true,
    systemSection: () => undefined,
    read(res, idPrefix, knownTools) {
      const content = res.message.content;
      if (res.message.toolCalls.length > 0 || format === 'native' || !content) {
        return { calls: res.message.toolCalls, malformed: [], message: content, native: true };
      }
      // Native first; a server without a tool parser hands the call back as text.
      const text = findTextToolCalls(content, textToolFormats, knownTools, idPrefix);
      return { calls: text.calls, malformed: text.malformed, message: text.calls.length + text.malformed.length > 0 ? text.message : content, native: false };
    },
    results: (calls, contentOf, native) => (native ? calls.map((c) => ({ role: 'tool' as const, toolCallId: c.id, content: contentOf(c.id) })) : textResults('hermes', calls, contentOf)),
  };
}

function textFormatProtocol(format: TextToolFormat): AgentProtocol {
  return {
    format,
    apiTools: false,
    systemSection: (tools) => toolsInPrompt(format, tools),
    read(res, idPrefix, knownTools) {
      const content = res.message.content ?? '';
      const text = findTextToolCalls(content, [format], knownTools, idPrefix);
      return { calls: text.calls, malformed: text.malformed, message: text.calls.length + text.malformed.length > 0 ? text.message : res.message.content, native: false };
    },
    results: (calls, contentOf) => textResults(format, calls, contentOf),
  };
}

/** Tools described in the system prompt in each format's own convention (the chat templates of those models). */
function toolsInPrompt(format: TextToolFormat, tools: readonly ToolDefinition[]): string {
  const schemas = tools.map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  switch (format) {
    case 'hermes':
      return [
        '# Tools',
        'You may call one or more functions. The function signatures are within <tools></tools>:',
        '<tools>',
        ...schemas,
        '</tools>',
        'For each call, write a JSON object with the function name and arguments within <tool_call></tool_call> tags:',
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
      ].join('\n');
    case 'mistral':
      return [`[AVAILABLE_TOOLS][${schemas.join(', ')}][/AVAILABLE_TOOLS]`, 'To call tools, write [TOOL_CALLS] followed by a JSON list: [TOOL_CALLS][{"name": "...", "arguments": {...}}]'].join('\n');
    case 'json':
      return ['Available functions (JSON Schema):', ...schemas, 'To call a function, reply with only a JSON object: {"name": "<function-name>", "parameters": {...}}.'].join('\n');
  }
}

function textResults(format: TextToolFormat, calls: readonly ToolCall[], contentOf: (callId: string) => string): ChatMessage[] {
  if (calls.length === 0) return [];
  const parts = calls.map((c) => {
    const content = contentOf(c.id);
    if (format === 'hermes') return `<tool_response>\n${content}\n</tool_response>`;
    if (format === 'mistral') return `[TOOL_RESULTS]${JSON.stringify({ name: c.name, content })}[/TOOL_RESULTS]`;
    return `Result of ${c.name}:\n${content}`;
  });
  return [{ role: 'user', content: parts.join('\n') }];
}

// ---------------------------------------------------------------- fenced-block text protocol

const blockTools: Record<string, { name: string; param: string }> = {
  bash: { name: 'run_command', param: 'command' },
  sh: { name: 'run_command', param: 'command' },
  shell: { name: 'run_command', param: 'command' },
  '': { name: 'run_command', param: 'command' },
  message: { name: 'message_user', param: 'text' },
  submit: { name: 'submit', param: 'summary' },
};

export const fencedProtocolInstructions = `You have no tools API. You act by writing fenced blocks; every reply needs at least one:
\`\`\`bash
a POSIX shell command line, run in the workspace; you get its exit code and output
\`\`\`
\`\`\`message
a message to the user; you get their reply
\`\`\`
\`\`\`submit
one or two sentences on what was done; this ends the task and the work is checked
\`\`\`
Text outside the blocks is for your own notes: the user never sees it.`;

const fencedProtocol: AgentProtocol = {
  format: 'text',
  apiTools: false,
  systemSection: () => fencedProtocolInstructions,
  read(res, idPrefix) {
    const content = res.message.content ?? '';
    const calls: ToolCall[] = [];
    const malformed: ReadReply['malformed'] = [];
    const rest = content.replace(/```([A-Za-z0-9_-]*)[^\S\n]*\n([\s\S]*?)```/g, (raw: string, lang: string, body: string) => {
      const tool = blockTools[lang.toLowerCase()];
      if (tool) calls.push({ id: `${idPrefix}${calls.length}`, name: tool.name, arguments: JSON.stringify({ [tool.param]: body.replace(/\n$/, '') }) });
      else malformed.push({ raw, error: `a \`\`\`${lang} block is not an action; write \`\`\`bash, \`\`\`message or \`\`\`submit` });
      return '';
    });
    if (calls.length === 0 && malformed.length === 0) {
      malformed.push({ raw: content, error: 'the reply has no fenced block; act with ```bash, ```message or ```submit' });
    }
    return { calls, malformed, message: rest.trim() === '' ? null : rest.trim(), native: false };
  },
  results: (calls, contentOf) => textResults('json', calls, contentOf),
};
