import { jsonrepair } from 'jsonrepair';
import type { ToolCall } from '../../ports/model.js';

/**
 * Tool calls a model wrote as text, because the server has no tool parser or the model ignores the tools API:
 * - hermes: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` (Hermes, Qwen2.5/3, the vLLM `hermes` parser),
 * - mistral: `[TOOL_CALLS][{"name": ..., "arguments": {...}}]`, or `[TOOL_CALLS]name[ARGS]{...}` (newer tokenizers),
 * - json: the whole reply is one JSON object `{"name": ..., "arguments" | "parameters": {...}}` (or an array of
 *   them), as Llama 3 JSON tool calling writes it; only a known tool name counts, so ordinary JSON is not a call.
 */
export type TextToolFormat = 'hermes' | 'mistral' | 'json';
export const textToolFormats: readonly TextToolFormat[] = ['hermes', 'mistral', 'json'];

export interface TextToolCalls {
  calls: ToolCall[];
  /** Markers whose call could not be read: recorded with the raw text as a malformed turn. */
  malformed: { raw: string; error: string }[];
  /** The reply with the calls taken out (the model's message around them), or null when nothing is left. */
  message: string | null;
}

export function findTextToolCalls(content: string, formats: readonly TextToolFormat[], knownTools: readonly string[], idPrefix: string): TextToolCalls {
  const found: TextToolCalls = { calls: [], malformed: [], message: content };
  for (const format of formats) {
    const r = format === 'hermes' ? hermes(content) : format === 'mistral' ? mistral(content) : bareJson(content, knownTools);
    if (!r) continue;
    let n = 0;
    for (const item of r.items) {
      if ('error' in item) found.malformed.push(item);
      else found.calls.push({ id: `${idPrefix}${n++}`, name: item.name, arguments: item.arguments });
    }
    found.message = r.rest.trim() === '' ? null : r.rest.trim();
    return found;
  }
  return found;
}

type Item = { name: string; arguments: string } | { raw: string; error: string };

function hermes(text: string): { items: Item[]; rest: string } | undefined {
  if (!text.includes('<tool_call>')) return undefined;
  const items: Item[] = [];
  // An unterminated last block is a call the reply was cut in (vLLM's parser reads it the same way).
  const rest = text.replace(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g, (_, body: string) => {
    items.push(...callsFromJson(body.trim(), `<tool_call>${body}</tool_call>`));
    return '';
  });
  return { items, rest };
}

function mistral(text: string): { items: Item[]; rest: string } | undefined {
  const at = text.indexOf('[TOOL_CALLS]');
  if (at < 0) return undefined;
  const body = text.slice(at);
  const items: Item[] = [];
  for (const part of body.split('[TOOL_CALLS]').slice(1)) {
    const args = part.indexOf('[ARGS]');
    if (args >= 0) {
      const name = part.slice(0, args).trim();
      const json = part.slice(args + '[ARGS]'.length).trim();
      const parsed = parseJson(json);
      items.push(parsed.ok && name ? { name, arguments: JSON.stringify(parsed.value) } : { raw: `[TOOL_CALLS]${part}`, error: parsed.ok ? 'no tool name before [ARGS]' : parsed.error });
    } else {
      items.push(...callsFromJson(part.trim(), `[TOOL_CALLS]${part}`));
    }
  }
  return { items, rest: text.slice(0, at) };
}

function bareJson(text: string, knownTools: readonly string[]): { items: Item[]; rest: string } | undefined {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(text);
  const body = (fenced ? (fenced[1] as string) : text).trim();
  if (!body.startsWith('{') && !body.startsWith('[')) return undefined;
  const parsed = parseJson(body);
  if (!parsed.ok) return undefined;
  const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  if (list.length === 0 || !list.every((v) => isCallObject(v) && knownTools.includes(v.name))) return undefined;
  return { items: list.map((v) => toItem(v as CallObject)), rest: '' };
}

interface CallObject {
  name: string;
  arguments?: unknown;
  parameters?: unknown;
}

function isCallObject(v: unknown): v is CallObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { name?: unknown }).name === 'string';
}

function toItem(v: CallObject): Item {
  const args = v.arguments ?? v.parameters ?? {};
  // Arguments written as a JSON string stay a string, so the tolerant argument parser sees what the model wrote.
  return { name: v.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

function callsFromJson(body: string, raw: string): Item[] {
  const parsed = parseJson(body);
  if (!parsed.ok) return [{ raw, error: parsed.error }];
  const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  return list.map((v) => (isCallObject(v) ? toItem(v) : { raw, error: 'a tool call needs {"name": "...", "arguments": {...}}' }));
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text === '') return { ok: false, error: 'the tool call is empty' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(text)) };
    } catch (err) {
      return { ok: false, error: `the tool call is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
    }
  }
}
