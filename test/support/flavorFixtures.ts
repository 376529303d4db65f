// The server shapes every LLM test runs against: vLLM (parsers on and off, the old reasoning field, token ids),
// SGLang, Ollama and llama.cpp's server (reasoning parsed, or left inline with reasoning_format none).
import type { LlmRoleConfig } from '../../src/llm/createChatModel.js';
import type { ModelServerOptions } from './modelServer.js';

export interface Fixture {
  name: string;
  server: ModelServerOptions;
  role?: Partial<LlmRoleConfig>;
  /** The server has no tool parser: the agent sends no tools and the call comes back as text. */
  textTools?: boolean;
  tokens?: 'ids' | 'logprobs';
}

export const fixtures: Fixture[] = [
  { name: 'vLLM, reasoning and tool parsers, token ids', server: { flavor: 'vllm' }, role: { tokenData: 'vllm' }, tokens: 'ids' },
  { name: 'vLLM before 0.11 (reasoning_content)', server: { flavor: 'vllm', legacyReasoningField: true }, role: { tokenData: 'logprobs' }, tokens: 'logprobs' },
  { name: 'vLLM without parsers (inline <think>, text tool calls)', server: { flavor: 'vllm', reasoningParser: false, toolParser: false }, textTools: true, role: { tokenData: 'vllm' }, tokens: 'ids' },
  { name: 'SGLang with reasoning and tool parsers, logprobs', server: { flavor: 'sglang' }, role: { tokenData: 'logprobs' }, tokens: 'logprobs' },
  { name: 'Ollama', server: { flavor: 'ollama' } },
  { name: 'llama.cpp server (reasoning_format deepseek)', server: { flavor: 'llamacpp' } },
  { name: 'llama.cpp server, reasoning_format none (inline <think>)', server: { flavor: 'llamacpp' }, role: { extraBody: { reasoning_format: 'none' } } },
];

