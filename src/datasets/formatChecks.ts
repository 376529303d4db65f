import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';

/**
 * The export formats as their consumers define them, written from the format documents (OpenAI chat fine-tuning
 * with tools, ATIF v1.4 RFC, Harbor task layout) rather than from our exporter's types, so a check catches the
 * exporter drifting from the format. Each check returns problems as "where: what" strings; empty means valid.
 */

// ---------------------------------------------------------------- OpenAI chat JSONL with tools

const chatToolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

const chatMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(chatToolCall).min(1).optional(), weight: z.union([z.literal(0), z.literal(1)]).optional() }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);

const chatTool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});

export const chatRecordSchema = z.strictObject({
  messages: z.array(chatMessage).min(1),
  tools: z.array(chatTool),
  metadata: z.looseObject({
    rollout_id: z.string(),
    environment: z.looseObject({ id: z.string(), lineage_root: z.string() }),
    user: z.looseObject({ id: z.string() }),
    generation: z.number().int().min(0),
    split: z.enum(['train', 'validation', 'test']),
    success: z.boolean(),
    reward: z.looseObject({ total: z.number(), verifier: z.number() }),
    tags: z.array(z.string()),
  }),
});

export function checkChatRecord(value: unknown, where: string): string[] {
  const parsed = chatRecordSchema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${where}: ${i.path.join('.')}: ${i.message}`);
  const problems: string[] = [];
  const rec = parsed.data;
  const declared = new Set(rec.tools.map((t) => t.function.name));
  let open = new Set<string>();
  rec.messages.forEach((m, i) => {
    const at = `${where}: messages.${i}`;
    if (m.role === 'assistant') {
      if (open.size > 0) problems.push(`${at}: assistant message before every tool call of the previous one was answered (${[...open].join(', ')})`);
      if (m.content === null && !m.tool_calls) problems.push(`${at}: assistant message has neither content nor tool_calls`);
      open = new Set();
      for (const c of m.tool_calls ?? []) {
        if (!declared.has(c.function.name)) problems.push(`${at}: tool "${c.function.name}" is not declared in tools`);
        try {
          const args: unknown = JSON.parse(c.function.arguments);
          if (typeof args !== 'object' || args === null || Array.isArray(args)) problems.push(`${at}: arguments of ${c.id} is JSON but not an object`);
        } catch {
          problems.push(`${at}: arguments of ${c.id} is not valid JSON`);
        }
        open.add(c.id);
      }
    } else if (m.role === 'tool') {
      if (!open.has(m.tool_call_id)) problems.push(`${at}: tool message answers "${m.tool_call_id}", which the preceding assistant message did not call (or was answered already)`);
      open.delete(m.tool_call_id);
    } else if (open.size > 0) {
      problems.push(`${at}: ${m.role} message before every tool call was answered (${[...open].join(', ')})`);
      open = new Set();
    }
  });
  if (!rec.messages.some((m) => m.role === 'assistant')) problems.push(`${where}: no assistant message (nothing to train on)`);
  return problems;
}

// ---------------------------------------------------------------- ATIF v1.4

const isoTimestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s), 'not an ISO 8601 timestamp');

const atifStep = z.strictObject({
  step_id: z.number().int().min(1),
  timestamp: isoTimestamp.optional(),
  source: z.enum(['system', 'user', 'agent']),
  model_name: z.string().optional(),
  reasoning_effort: z.union([z.string(), z.number()]).optional(),
  message: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(z.strictObject({ tool_call_id: z.string().min(1), function_name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) })).optional(),
  observation: z.strictObject({
    results: z.array(z.strictObject({ source_call_id: z.string().optional(), content: z.string().optional(), subagent_trajectory_ref: z.array(z.unknown()).optional() })),
  }).optional(),
  metrics: z.strictObject({
    prompt_tokens: z.number().int().min(0).optional(),
    completion_tokens: z.number().int().min(0).optional(),
    cached_tokens: z.number().int().min(0).optional(),
    cost_usd: z.number().min(0).optional(),
    prompt_token_ids: z.array(z.number().int()).optional(),
    completion_token_ids: z.array(z.number().int()).optional(),
    logprobs: z.array(z.number()).optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export const atifTrajectorySchema = z.strictObject({
  schema_version: z.literal('ATIF-v1.4'),
  session_id: z.string().min(1),
  agent: z.strictObject({ name: z.string().min(1), version: z.string().min(1), model_name: z.string().optional(), extra: z.record(z.string(), z.unknown()).optional() }),
  steps: z.array(atifStep).min(1),
  notes: z.string().optional(),
  final_metrics: z.strictObject({
    total_prompt_tokens: z.number().int().min(0).optional(),
    total_completion_tokens: z.number().int().min(0).optional(),
    total_cached_tokens: z.number().int().min(0).optional(),
    total_cost_usd: z.number().min(0).optional(),
    total_steps: z.number().int().min(0).optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export function checkAtifTrajectory(value: unknown, where: string): string[] {
  const parsed = atifTrajectorySchema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${where}: ${i.path.join('.')}: ${i.message}`);
  const problems: string[] = [];
  parsed.data.steps.forEach((s, i) => {
    const at = `${where}: steps.${i}`;
    if (s.step_id !== i + 1) problems.push(`${at}: step_id ${s.step_id}, expected ${i + 1} (sequential from 1)`);
    if (s.source !== 'agent') {
      for (const f of ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const) {
        if (s[f] !== undefined) problems.push(`${at}: ${f} is only allowed on agent steps (source is ${s.source})`);
      }
    }
    const ids = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const r of s.observation?.results ?? []) {
      if (r.source_call_id !== undefined && !ids.has(r.source_call_id)) problems.push(`${at}: observation references "${r.source_call_id}", not a tool call of this step`);
    }
  });
  return problems;
}

// ---------------------------------------------------------------- Harbor task folder

export const harborRequiredFiles = ['task.toml', 'instruction.md', 'environment/Dockerfile', 'tests/test.sh'] as const;

export function checkHarborTask(dir: string): string[] {
  const problems: string[] = [];
  for (const f of harborRequiredFiles) if (!existsSync(join(dir, f))) problems.push(`${dir}: ${f} is missing`);
  const tomlPath = join(dir, 'task.toml');
  if (existsSync(tomlPath)) {
    try {
      const doc = parseToml(readFileSync(tomlPath, 'utf8')) as Record<string, unknown>;
      if (typeof doc.version !== 'string') problems.push(`${tomlPath}: "version" must be a string such as "1.0"`);
      for (const [section, key] of [['verifier', 'timeout_sec'], ['agent', 'timeout_sec']] as const) {
        const sec = doc[section] as Record<string, unknown> | undefined;
        if (sec && sec[key] !== undefined && typeof sec[key] !== 'number') problems.push(`${tomlPath}: [${section}] ${key} must be a number`);
      }
      const env = doc.environment as Record<string, unknown> | undefined;
      for (const key of ['cpus', 'memory_mb', 'storage_mb', 'build_timeout_sec']) {
        if (env && env[key] !== undefined && typeof env[key] !== 'number') problems.push(`${tomlPath}: [environment] ${key} must be a number`);
      }
    } catch (err) {
      problems.push(`${tomlPath}: does not parse as TOML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
    }
  }
  const testSh = join(dir, 'tests/test.sh');
  if (existsSync(testSh)) {
    if ((statSync(testSh).mode & 0o111) === 0) problems.push(`${testSh}: not executable`);
    if (!readFileSync(testSh, 'utf8').includes('/logs/verifier/reward')) problems.push(`${testSh}: never writes /logs/verifier/reward.txt or reward.json`);
  }
  const dockerfile = join(dir, 'environment/Dockerfile');
  if (existsSync(dockerfile) && !/^\s*FROM\s+\S+/m.test(readFileSync(dockerfile, 'utf8'))) problems.push(`${dockerfile}: no FROM line`);
  return problems;
}
