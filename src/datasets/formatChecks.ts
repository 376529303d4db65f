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

// ---------------------------------------------------------------- ATIF v1.7

const isoTimestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s), 'not an ISO 8601 timestamp');
const extra = z.record(z.string(), z.unknown()).optional();

const subagentRef = z.strictObject({ trajectory_id: z.string().optional(), session_id: z.string().optional(), trajectory_path: z.string().optional(), extra })
  .refine((r) => (r.trajectory_id ?? '').trim() !== '' || (r.trajectory_path ?? '').trim() !== '', 'a subagent reference sets trajectory_id or trajectory_path');

const atifStep = z.strictObject({
  step_id: z.number().int().min(1),
  timestamp: isoTimestamp.optional(),
  source: z.enum(['system', 'user', 'agent']),
  model_name: z.string().optional(),
  reasoning_effort: z.union([z.string(), z.number()]).optional(),
  message: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(z.strictObject({ tool_call_id: z.string().min(1), function_name: z.string().min(1), arguments: z.record(z.string(), z.unknown()), extra })).optional(),
  observation: z.strictObject({
    results: z.array(z.strictObject({ source_call_id: z.string().optional(), content: z.string().optional(), subagent_trajectory_ref: z.array(subagentRef).optional(), extra })),
  }).optional(),
  metrics: z.strictObject({
    prompt_tokens: z.number().int().min(0).optional(),
    completion_tokens: z.number().int().min(0).optional(),
    cached_tokens: z.number().int().min(0).optional(),
    cost_usd: z.number().min(0).optional(),
    prompt_token_ids: z.array(z.number().int()).optional(),
    completion_token_ids: z.array(z.number().int()).optional(),
    logprobs: z.array(z.number()).optional(),
    extra,
  }).optional(),
  is_copied_context: z.boolean().optional(),
  llm_call_count: z.number().int().min(0).optional(),
  extra,
});

type AtifTrajectoryShape = {
  schema_version: 'ATIF-v1.7';
  session_id?: string;
  trajectory_id?: string;
  agent: { name: string; version: string; model_name?: string; tool_definitions?: Record<string, unknown>[]; extra?: Record<string, unknown> };
  steps: z.infer<typeof atifStep>[];
  notes?: string;
  final_metrics?: Record<string, unknown>;
  continued_trajectory_ref?: string;
  extra?: Record<string, unknown>;
  subagent_trajectories?: AtifTrajectoryShape[];
};

export const atifTrajectorySchema: z.ZodType<AtifTrajectoryShape> = z.lazy(() => z.strictObject({
  schema_version: z.literal('ATIF-v1.7'),
  session_id: z.string().min(1).optional(),
  trajectory_id: z.string().min(1).optional(),
  agent: z.strictObject({ name: z.string().min(1), version: z.string().min(1), model_name: z.string().optional(), tool_definitions: z.array(z.record(z.string(), z.unknown())).optional(), extra }),
  steps: z.array(atifStep).min(1),
  notes: z.string().optional(),
  final_metrics: z.strictObject({
    total_prompt_tokens: z.number().int().min(0).optional(),
    total_completion_tokens: z.number().int().min(0).optional(),
    total_cached_tokens: z.number().int().min(0).optional(),
    total_cost_usd: z.number().min(0).optional(),
    total_steps: z.number().int().min(0).optional(),
    extra,
  }).optional(),
  continued_trajectory_ref: z.string().optional(),
  extra,
  subagent_trajectories: z.array(atifTrajectorySchema).optional(),
}));

/**
 * A trajectory against ATIF v1.7, the field shapes and the rules the spec's own validators enforce: step ids from
 * 1, agent-only fields, no LLM fields on a deterministic (`llm_call_count: 0`) agent step, unique tool call ids whose
 * results reference them, unique `trajectory_id`s on embedded subagents, and path-less references that resolve.
 */
export function checkAtifTrajectory(value: unknown, where: string): string[] {
  const parsed = atifTrajectorySchema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${where}: ${i.path.join('.')}: ${i.message}`);
  return atifRuleProblems(parsed.data, where);
}

function atifRuleProblems(t: AtifTrajectoryShape, where: string): string[] {
  const problems: string[] = [];
  const embedded = new Set<string>();
  (t.subagent_trajectories ?? []).forEach((sub, i) => {
    const at = `${where}: subagent_trajectories.${i}`;
    if (!sub.trajectory_id) problems.push(`${at}: trajectory_id is required on an embedded subagent`);
    else if (embedded.has(sub.trajectory_id)) problems.push(`${at}: trajectory_id "${sub.trajectory_id}" is not unique`);
    else embedded.add(sub.trajectory_id);
    problems.push(...atifRuleProblems(sub, at));
  });
  t.steps.forEach((s, i) => {
    const at = `${where}: steps.${i}`;
    if (s.step_id !== i + 1) problems.push(`${at}: step_id ${s.step_id}, expected ${i + 1} (sequential from 1)`);
    if (s.source !== 'agent') {
      for (const f of ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const) {
        if (s[f] !== undefined) problems.push(`${at}: ${f} is only allowed on agent steps (source is ${s.source})`);
      }
    }
    if (s.source === 'agent' && s.llm_call_count === 0) {
      for (const f of ['metrics', 'reasoning_content'] as const) if (s[f] !== undefined) problems.push(`${at}: ${f} must be absent when llm_call_count is 0`);
    }
    const ids = new Set<string>();
    for (const c of s.tool_calls ?? []) {
      if (ids.has(c.tool_call_id)) problems.push(`${at}: duplicate tool_call_id "${c.tool_call_id}"`);
      ids.add(c.tool_call_id);
    }
    for (const r of s.observation?.results ?? []) {
      if (r.source_call_id !== undefined && !ids.has(r.source_call_id)) problems.push(`${at}: observation references "${r.source_call_id}", not a tool call of this step`);
      for (const ref of r.subagent_trajectory_ref ?? []) {
        if (!ref.trajectory_path && !embedded.has(ref.trajectory_id ?? '')) problems.push(`${at}: subagent reference "${ref.trajectory_id}" is not among subagent_trajectories`);
      }
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
