import { jsonrepair } from 'jsonrepair';
import type { ToolCall } from '../ports/model.js';
import type { AgentToolCall } from './ports.js';

export type ParsedArguments =
  | { ok: true; value: Record<string, unknown> }
  /** A bare string where an object was expected; tools with one main parameter accept it. */
  | { ok: true; value: string }
  | { ok: false; error: string };

/**
 * Reads tool-call arguments the way models actually write them: strict JSON, or JSON in a code fence, with
 * trailing commas, single quotes, unquoted keys, a missing closing brace, JSON encoded twice, or a bare string.
 */
export function parseToolArguments(raw: string): ParsedArguments {
  const text = stripFence(raw).trim();
  if (text === '') return { ok: true, value: {} };
  if (text.startsWith('{') || text.startsWith('[') || text.startsWith('"')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      try {
        parsed = JSON.parse(jsonrepair(text));
      } catch (err) {
        return { ok: false, error: `arguments are not valid JSON (${err instanceof Error ? err.message : String(err)})` };
      }
    }
    if (typeof parsed === 'string') {
      const inner = parsed.trim();
      return inner.startsWith('{') ? parseToolArguments(inner) : { ok: true, value: parsed };
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, value: parsed as Record<string, unknown> };
    return { ok: false, error: `arguments must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}` };
  }
  return { ok: true, value: text };
}

function stripFence(raw: string): string {
  const m = /^\s*```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(raw);
  return m ? (m[1] as string) : raw;
}

/** The parameter of each agent tool, with the names models commonly use instead. */
const mainParameter = {
  run_command: { name: 'command', aliases: ['command', 'cmd', 'shell', 'script'], required: true },
  message_user: { name: 'text', aliases: ['text', 'message', 'content'], required: true },
  submit: { name: 'summary', aliases: ['summary', 'message', 'text'], required: false },
} as const;

type AgentToolName = keyof typeof mainParameter;

function isAgentTool(name: string): name is AgentToolName {
  return Object.hasOwn(mainParameter, name);
}

/**
 * One model tool call as an agent action. Anything unusable becomes an `invalid` call whose error says what was
 * wrong and how the call should look; the engine returns it to the model as the tool result.
 */
export function parseAgentToolCall(call: ToolCall): AgentToolCall {
  const invalid = (error: string): AgentToolCall => ({ id: call.id, name: call.name, invalid: error, rawArguments: call.arguments });
  if (!isAgentTool(call.name)) {
    return invalid(`unknown tool "${call.name}"; the tools are run_command {"command": "..."}, message_user {"text": "..."} and submit {"summary": "..."}`);
  }
  const spec = mainParameter[call.name];
  const usage = `${call.name} takes {"${spec.name}": "<string>"}`;
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok) return invalid(`${parsed.error}; ${usage}`);
  let value: unknown;
  if (typeof parsed.value === 'string') {
    value = parsed.value;
  } else {
    const found = spec.aliases.find((a) => a in (parsed.value as Record<string, unknown>));
    value = found === undefined ? undefined : (parsed.value as Record<string, unknown>)[found];
  }
  if (value === undefined || value === null) {
    if (!spec.required) return { id: call.id, name: 'submit', summary: '' };
    return invalid(`missing "${spec.name}"; ${usage}`);
  }
  if (typeof value !== 'string') {
    if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
    else return invalid(`"${spec.name}" must be a string, got ${Array.isArray(value) ? 'an array' : typeof value}; ${usage}`);
  }
  const text = value as string;
  switch (call.name) {
    case 'run_command':
      return text.trim() === '' ? invalid(`"command" is empty; ${usage}`) : { id: call.id, name: 'run_command', command: text };
    case 'message_user':
      return text.trim() === '' ? invalid(`"text" is empty; ${usage}`) : { id: call.id, name: 'message_user', text };
    case 'submit':
      return { id: call.id, name: 'submit', summary: text };
  }
}
