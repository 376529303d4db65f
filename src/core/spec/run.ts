import { z } from 'zod';
import { agentGenesSchema } from './agent.js';
import { idSchema, relativePathSchema, specApiVersion } from './common.js';
import { checkUnique, evenWithOtherErrors, field, listOf } from './crossField.js';
import { knobNames, knobRanges, type KnobName } from './knobs.js';

export const roleNames = ['agent', 'user', 'designer', 'judge'] as const;
export type RoleName = (typeof roleNames)[number];

export const endpointSchema = z
  .strictObject({
    name: idSchema.describe('Name that roles use to refer to this endpoint.'),
    baseUrls: z.array(z.url()).min(1).max(64).describe('One or more OpenAI-compatible base URLs (e.g. http://127.0.0.1:8000/v1); requests are balanced across them.'),
    apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'apiKeyEnv names an environment variable').optional().describe('Environment variable holding the API key. Keys are never written into specs or run files.'),
    maxConcurrency: z.number().int().min(1).max(1024).default(8).describe('Requests in flight at once per base URL.'),
    timeoutMs: z.number().int().min(100).max(3_600_000).default(600_000).describe('Timeout of one request in ms (reasoning models may think for minutes before they answer).'),
    maxRetries: z.number().int().min(0).max(20).default(4).describe('Retries on 429, 5xx and timeouts, with exponential backoff honouring Retry-After.'),
    prices: z
      .record(z.string(), z.strictObject({
        inputPerMTok: z.number().min(0).describe('USD per million prompt tokens.'),
        outputPerMTok: z.number().min(0).describe('USD per million completion tokens.'),
      }))
      .default({})
      .describe('Price per million tokens by model name, for cost accounting.'),
  })
  .describe('An OpenAI-compatible model server.');

/** Request fields Coevolve sets itself; `extraBody` may not override them. */
export const reservedBodyFields = ['model', 'messages', 'tools', 'tool_choice', 'stream', 'stream_options', 'response_format', 'seed', 'n'] as const;

export const llmRoleSchema = z
  .strictObject({
    kind: z.literal('llm').describe('An LLM behind an OpenAI-compatible endpoint.'),
    endpoint: idSchema.describe('Name of an entry in `endpoints`.'),
    model: z.string().min(1).max(256).describe('Model name sent to the endpoint.'),
    temperature: z.number().min(0).max(2).default(0.7).describe('Sampling temperature.'),
    topP: z.number().gt(0).max(1).optional().describe('Nucleus sampling (top_p).'),
    maxTokens: z
      .number().int().min(1).max(1_000_000).optional()
      .describe('Maximum completion tokens per call. Unset: the server decides (vLLM lets a reply fill the rest of the context), which a reasoning model needs to think before it answers.'),
    stop: z.array(z.string().min(1).max(64)).max(8).optional().describe('Stop sequences.'),
    extraBody: z
      .record(z.string().min(1).max(64), z.unknown())
      .optional()
      .describe('Server-specific request fields sent as they are, e.g. {chat_template_kwargs: {enable_thinking: false}} for vLLM/SGLang or {reasoning_format: "deepseek"} for llama.cpp. Recorded in every rollout.'),
    contextWindow: z.number().int().min(256).max(10_000_000).optional().describe("The model's context length in tokens. Unset: read from the server's /v1/models when it says (vLLM, SGLang: max_model_len; llama.cpp: n_ctx_train), else no fitting."),
    sendReasoning: z
      .enum(['none', 'last', 'all'])
      .default('none')
      .describe("Which of the model's past reasoning is sent back with the history: none (DeepSeek-R1 and Qwen3 templates want none), the last turn's, or all."),
    reasoningField: z
      .enum(['reasoning_content', 'reasoning', 'think-tags'])
      .default('reasoning_content')
      .describe('How past reasoning is sent back: as reasoning_content (vLLM, llama.cpp), reasoning (vLLM, Ollama) or inline <think> tags in content.'),
    toolCallFormat: z
      .enum(['auto', 'native', 'hermes', 'json', 'mistral', 'text'])
      .default('auto')
      .describe('Agent only. auto: native tool calls, and tool calls written as text (Hermes/Qwen <tool_call>, Mistral [TOOL_CALLS], a bare JSON object) recognised. native: native only. hermes/json/mistral: only that text format. text: no tools API; the agent writes its command or message in a fenced block.'),
    tokenData: z
      .enum(['off', 'logprobs', 'vllm'])
      .default('off')
      .describe('Agent only. Token-level data for RL: logprobs (OpenAI logprobs: completion log-probabilities) or vllm (also completion and prompt token ids: return_token_ids, return_tokens_as_token_ids). Kept per assistant turn in a sidecar next to the rollout file.'),
  })
  .superRefine((role, ctx) => {
    for (const key of Object.keys(role.extraBody ?? {})) {
      if ((reservedBodyFields as readonly string[]).includes(key)) {
        ctx.addIssue({ code: 'custom', message: `extraBody may not set "${key}": Coevolve sets it itself`, path: ['extraBody', key] });
      }
    }
  });

export const roleSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('builtin').describe('The built-in, rule-based implementation (not an LLM).') }),
    llmRoleSchema,
  ])
  .describe('Which implementation plays a role.');

export const bandSchema = z
  .strictObject({
    low: z.number().min(0).max(1).default(0.4).describe('Lower edge of the target success band.'),
    high: z.number().min(0).max(1).default(0.6).describe('Upper edge of the target success band.'),
    ramp: z.number().min(0).max(1).default(0.25).describe('Width over which fitness falls to 0 outside the band.'),
  })
  .refine((b) => b.low <= b.high, { message: 'band.low must not exceed band.high', path: ['low'] })
  .describe('Target success band: pairs in it are at the edge of what the agent can do.');

export const dockerHostSchema = z
  .strictObject({
    url: z.string().regex(/^(unix|tcp|ssh|npipe):\/\//, 'a Docker host URL starts with unix://, tcp://, ssh:// or npipe://').describe('Docker endpoint (unix://, tcp:// with TLS, ssh://).'),
    maxContainers: z.number().int().min(1).max(1024).default(8).describe('Sandboxes this host runs at once.'),
    tlsDir: z.string().optional().describe('Folder with ca.pem, cert.pem, key.pem for tcp:// with TLS.'),
  })
  .describe('One Docker engine in the sandbox pool.');

/**
 * The knobs of the built-in seeds, with the families' own ranges and words (`knobRanges`): a value outside a knob's
 * range is an error at its line, not a value the family would quietly clamp.
 */
export const builtinKnobsSchema = z.strictObject(
  Object.fromEntries(knobNames.map((k) => [k, z.number().int().min(knobRanges[k].min).max(knobRanges[k].max).optional().describe(`${knobRanges[k].description} Set for every built-in seed, in place of builtinLevel's value.`)])) as Record<KnobName, z.ZodOptional<z.ZodNumber>>,
);

export const runConfigSchema = z
  .strictObject({
    apiVersion: z.literal(specApiVersion).describe('Spec format version; always "coevolve/v1".'),
    kind: z.literal('Run').describe('Always "Run" for a run config.'),
    name: idSchema.describe('Run name; the run directory is <output>/<name>-<timestamp>.'),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(1).describe('Seed of every random choice; same config and seed give the same run.'),
    generations: z.number().int().min(1).max(10000).default(5).describe('Number of generations to run.'),
    population: z
      .strictObject({
        environments: z.array(relativePathSchema).max(1000).default([]).describe('Environment spec files or folders, relative to this file.'),
        users: z.array(relativePathSchema).max(1000).default([]).describe('User profile files or folders, relative to this file.'),
        builtinFamilies: z.array(z.string().min(1).max(64)).max(64).default([]).describe('Built-in task families to seed from (e.g. "log-triage").'),
        builtinLevel: z.number().min(1).max(100).default(1).describe('Difficulty level of the built-in seeds, 1 = easiest; between whole levels each knob takes its nearest value (1.75: two knob steps above level 1).'),
        builtinKnobs: builtinKnobsSchema
          .optional()
          .describe('Knob values of the built-in seeds in place of builtinLevel\'s, e.g. {feedback: 1} for a terse check.sh from the start. The held-out sets are drawn at heldOutLevel (default: builtinLevel) without these knobs.'),
        heldOutLevel: z.number().min(1).max(100).optional().describe('Level of the frozen test and promotion sets drawn from the built-in families (default: builtinLevel). A curriculum that starts below its target measures the agent on the target: seeds at 1.5, held-out sets at 2.'),
        pairsPerGeneration: z.number().int().min(1).max(10000).default(8).describe('(environment, user) pairs played per generation.'),
        childrenPerGeneration: z.number().int().min(0).max(10000).default(4).describe('New children proposed per generation.'),
        maxChildrenPerGeneration: z.number().int().min(0).max(10000).optional().describe('Children a generation may plan when the fitted model places more played active pairs than childrenPerGeneration outside the band (after a promotion most of the archive is too easy at once): as many as those pairs, up to this (default: childrenPerGeneration, a fixed count).'),
        replayShare: z.number().min(0).max(1).default(0.5).describe('Share of pairs drawn from the archive by PLR replay (the rest are fresh children).'),
        stalenessMix: z.number().min(0).max(1).default(0.2).describe('PLR staleness mixing coefficient.'),
        maxArchive: z.number().int().min(1).max(100000).default(200).describe('Active pairs the archive holds at most: above it, the measured pairs (played, or screened on admission) least likely in band (the fitted model places them furthest from the band\'s centre) are retired, so admitted children take their places.'),
        minArchive: z.number().int().min(0).max(100000).default(0).describe('Active pairs below which nothing is retired or quarantined, so the archive cannot shrink to look in band.'),
      })
      .refine((p) => p.maxArchive >= p.minArchive, { message: 'population.maxArchive must not be below population.minArchive (the archive could not be both)', path: ['maxArchive'] })
      .refine((p) => p.maxChildrenPerGeneration === undefined || p.maxChildrenPerGeneration >= p.childrenPerGeneration, { message: 'population.maxChildrenPerGeneration must not be below population.childrenPerGeneration (a generation plans at least that many)', path: ['maxChildrenPerGeneration'] })
      .default({
        environments: [], users: [], builtinFamilies: [], builtinLevel: 1, pairsPerGeneration: 8,
        childrenPerGeneration: 4, replayShare: 0.5, stalenessMix: 0.2, maxArchive: 200, minArchive: 0,
      })
      .describe('Initial population and archive sizes.'),
    k: z.number().int().min(1).max(64).default(4).describe('Rollouts per pair without hint.'),
    hintPlays: z.number().int().min(0).max(64).default(2).describe('Rollouts per pair with the privileged hint (k_h), for regret.'),
    band: bandSchema.default({ low: 0.4, high: 0.6, ramp: 0.25 }),
    fitness: z
      .strictObject({
        band: z.number().min(0).max(10).default(0.6).describe('Weight of the band plateau.'),
        regret: z.number().min(0).max(10).default(0.4).describe('Weight of regret (normalised by 0.15).'),
        novelty: z.number().min(0).max(10).default(0.05).describe('Weight of novelty.'),
        cost: z.number().min(0).max(10).default(0.01).describe('Weight of cost (USD).'),
      })
      .default({ band: 0.6, regret: 0.4, novelty: 0.05, cost: 0.01 })
      .describe('Weights of the fitness terms.'),
    reward: z
      .strictObject({
        verifier: z.number().min(0).max(10).default(1).describe('Weight of the verifier reward (multiplied by user goal met, tau2 rule).'),
        efficiency: z.number().min(0).max(10).default(0.1).describe('Weight of the efficiency term.'),
        rubric: z.number().min(0).max(10).default(0.1).describe('Weight of rubric tags.'),
        satisfaction: z.number().min(0).max(10).default(0).describe('Weight of user satisfaction.'),
      })
      .default({ verifier: 1, efficiency: 0.1, rubric: 0.1, satisfaction: 0 })
      .describe('How reward components combine into the scalar reward.'),
    concurrency: z.number().int().min(1).max(1024).default(4).describe('Rollouts played at once.'),
    sandbox: z
      .strictObject({
        backend: z.enum(['auto', 'docker', 'bwrap', 'process']).default('auto').describe('Sandbox backend. "auto" uses Docker when it answers and has the image, else bubblewrap; "process" is unsandboxed and for development only.'),
        hosts: z.array(dockerHostSchema).max(64).default([]).describe('Docker hosts of the pool; empty means DOCKER_HOST or the local socket.'),
        warmPool: z.number().int().min(0).max(256).default(0).describe('Pre-started sandboxes kept per image.'),
        rootfs: z.string().optional().describe('bwrap only: the rootfs folder (default: exported base image or the host /usr).'),
      })
      .default({ backend: 'auto', hosts: [], warmPool: 0 })
      .describe('Where rollouts run.'),
    budgets: z
      .strictObject({
        turns: z.number().int().min(1).max(1000).default(30).describe('Agent turns per rollout.'),
        tokens: z.number().int().min(0).max(100_000_000).default(200_000).describe('Tokens per rollout (0 = no limit).'),
        wallClockSec: z.number().min(1).max(86400).default(300).describe('Wall clock per rollout, in seconds.'),
        costUsd: z.number().min(0).max(100000).default(0).describe('Total run cost cap in USD (0 = no cap).'),
      })
      .default({ turns: 30, tokens: 200_000, wallClockSec: 300, costUsd: 0 })
      .describe('Budgets: a rollout that exceeds one is truncated.'),
    endpoints: z.array(endpointSchema).max(64).default([]).describe('OpenAI-compatible endpoints used by LLM roles.'),
    roles: z
      .strictObject({
        agent: roleSchema.default({ kind: 'builtin' }),
        user: roleSchema.default({ kind: 'builtin' }),
        designer: roleSchema.default({ kind: 'builtin' }),
        judge: roleSchema.default({ kind: 'builtin' }),
      })
      .default({ agent: { kind: 'builtin' }, user: { kind: 'builtin' }, designer: { kind: 'builtin' }, judge: { kind: 'builtin' } })
      .describe('Implementation per role.'),
    agent: z
      .strictObject({
        genes: agentGenesSchema.default(agentGenesSchema.parse({})),
        systemPrompt: z.string().max(65536).optional().describe('System prompt for an LLM agent.'),
        evolve: z.boolean().default(true).describe('Evolve the agent between generations (genes or playbook).'),
      })
      .default({ genes: agentGenesSchema.parse({}), evolve: true })
      .describe('Starting agent.'),
    trainerHook: z
      .strictObject({
        command: z.array(z.string().min(1)).min(1).describe('Command (argv) run between generations; gets COEVOLVE_GENERATION_DIR and COEVOLVE_RUN_DIR.'),
        timeoutSec: z.number().min(1).max(604800).default(3600).describe('Time limit of the hook.'),
      })
      .optional()
      .describe('External trainer called between generations.'),
    output: z.string().min(1).max(1024).default('runs').describe('Folder for run directories, relative to the workspace.'),
  })
  .superRefine((run, ctx) => {
    const names = checkUnique(listOf(field(run, 'endpoints')), 'name', ['endpoints'], 'endpoint name', ctx);
    for (const role of roleNames) {
      const r = field(field(run, 'roles'), role);
      const endpoint = field(r, 'endpoint');
      if (field(r, 'kind') === 'llm' && typeof endpoint === 'string' && !names.has(endpoint)) {
        ctx.addIssue({ code: 'custom', message: `role ${role} uses endpoint "${endpoint}", which is not defined in endpoints`, path: ['roles', role, 'endpoint'] });
      }
    }
    const population = field(run, 'population');
    const environments = field(population, 'environments'), families = field(population, 'builtinFamilies');
    if (Array.isArray(environments) && Array.isArray(families) && environments.length === 0 && families.length === 0) {
      ctx.addIssue({ code: 'custom', message: 'population needs environments or builtinFamilies', path: ['population'] });
    }
  }, evenWithOtherErrors)
  .describe('A co-evolution run: population, plays per pair, band, budgets, roles and sandbox.');

export type RunConfig = z.infer<typeof runConfigSchema>;
export type RoleConfig = z.infer<typeof roleSchema>;
export type EndpointConfig = z.infer<typeof endpointSchema>;
