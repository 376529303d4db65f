import { z } from 'zod';
import { idSchema, lineageSchema, provenanceSchema, relativePathSchema, specApiVersion } from './common.js';
import { checkReferences, checkUnique, evenWithOtherErrors, field, listOf } from './crossField.js';

export const sandboxFileSchema = z
  .strictObject({
    path: relativePathSchema.describe('Where the file goes, relative to the sandbox workspace.'),
    content: z.string().max(4 * 1024 * 1024).describe('The file content (UTF-8).'),
    mode: z
      .string()
      .regex(/^0?[0-7]{3}$/, 'mode is an octal string such as "644" or "0755"')
      .optional()
      .describe('Unix permission bits as an octal string, e.g. "755" for scripts.'),
  })
  .describe('A file written into the workspace before the agent starts.');

export const limitsSchema = z
  .strictObject({
    memoryMb: z.number().int().min(16).max(65536).default(256).describe('Memory limit of the sandbox in MiB (16..65536).'),
    pids: z.number().int().min(8).max(4096).default(64).describe('Maximum number of processes in the sandbox (8..4096).'),
    cpus: z.number().min(0.1).max(64).default(1).describe('CPU share, in cores (0.1..64).'),
    commandTimeoutSec: z.number().min(1).max(3600).default(20).describe('Wall-clock limit for one agent command, in seconds (1..3600).'),
    maxOutputBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(64 * 1024).describe('Output kept per command; the middle is cut beyond this (1 KiB..64 MiB).'),
    diskMb: z.number().int().min(1).max(65536).default(64).describe('Size of the writable workspace and /tmp, in MiB.'),
    agentTimeoutSec: z.number().min(1).max(86400).optional().describe('Time limit on the agent in this environment (Harbor: [agent] timeout_sec), counted from the user\'s opening: when it runs out it ends the agent\'s turns (truncated: agent_timeout) and the verifier still judges what the agent left. The run\'s budgets.wallClockSec still bounds the whole rollout, verification included. The oracle gets it instead of the verifier\'s timeout.'),
  })
  .describe('Resource limits applied to every sandbox of this environment.');

export const sandboxSchema = z
  .strictObject({
    image: z.string().min(1).max(256).default('coevolve/busybox:latest').describe('Local container image (never pulled). Build the defaults with `coevolve sandbox build-image`.'),
    workdir: z.string().regex(/^\/[A-Za-z0-9._/-]*$/, 'workdir is an absolute path inside the sandbox').default('/workspace').describe('Working directory inside the sandbox (absolute).'),
    files: z.array(sandboxFileSchema).max(500).default([]).describe('Files written into the workspace before setup.'),
    setup: z.array(z.string().min(1).max(16384)).max(100).default([]).describe('Shell commands run in order before the agent starts; the agent never sees them.'),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment variable names are letters, digits and "_"'), z.string().max(4096)).default({}).describe('Environment variables for every command.'),
    limits: limitsSchema.default(limitsSchema.parse({})),
    network: z.literal('none').default('none').describe('Network access: only "none" is supported; sandboxes never reach a network.'),
    agentUser: z
      .enum(['nobody', 'root'])
      .optional()
      .describe('Who the agent (and the oracle) runs as. nobody (default): uid 65534 on a read-only root. root: uid 0 in a writable container, as Harbor runs agents, for tasks that install packages or change system files (docker only). A root agent could replace the image\'s own tools, so with verifier.mode in-place its rewards are only as trustworthy as Harbor\'s (see "The verifier\'s trust rule").'),
    shell: z
      .enum(['session', 'stateless'])
      .optional()
      .describe('How the agent\'s commands share a shell. stateless (when absent): each command starts in a fresh shell in the workdir. session: one shell for the whole rollout, so cd and exported variables persist (docker and bwrap through the command channel; elsewhere it runs stateless and the rollout records that).'),
  })
  .describe('The sandbox the agent works in.');

export const verifierSchema = z
  .strictObject({
    script: z.string().min(1).max(262144).describe('Shell script run after the agent is done, as root, in the workdir, with /tests holding the files below. Exit 0 means pass; it may write /logs/verifier/reward.txt (a number) or reward.json (a map of numbers).'),
    files: z.array(sandboxFileSchema).max(100).default([]).describe('Test files, written under /tests (their paths are relative to it) only after every agent process has ended, so the agent can never read them.'),
    timeoutSec: z.number().min(1).max(3600).default(60).describe('Wall-clock limit for the verifier, in seconds.'),
    mode: z
      .enum(['fresh', 'in-place'])
      .default('fresh')
      .describe('fresh (default): the verifier runs in a new sandbox holding only a sanitised copy of the workspace (links that leave it dropped). in-place: in the agent sandbox itself, for tests that check system state; /tmp and the rest of the system are then what the agent left.'),
    partialCredit: z.boolean().default(false).describe('Read the reward file even when the verifier exits non-zero (partial credit). Without it a failing exit gives 0.'),
    requireRewardFile: z.boolean().optional().describe('No reward file means reward 0 whatever the exit code (Harbor\'s rule). Without it an exit 0 with no file gives 1.'),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment variable names are letters, digits and "_"'), z.string().max(4096)).optional().describe('Environment variables of the verifier only (Harbor: [verifier] env), set after the sandbox\'s env; the agent never sees them.'),
    rewardFile: z
      .string()
      .max(4096)
      .optional()
      .describe('Deprecated and ignored (it never reaches a shell): the reward is always read from /logs/verifier/reward.json, else reward.txt.'),
  })
  .describe('How the outcome is checked.');

export const oracleSchema = z
  .strictObject({
    script: z.string().min(1).max(262144).describe('Reference solution (solve.sh). Run with every hidden fact known; it must make the verifier pass.'),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment variable names are letters, digits and "_"'), z.string().max(4096)).optional().describe('Environment variables of the oracle only (Harbor: [solution] env), set after the sandbox\'s env.'),
  })
  .describe('A known-good solution; validation requires it to pass.');

export const hiddenFactSchema = z
  .strictObject({
    id: idSchema.describe('Fact id, referenced by the user goal and by the built-in user rules.'),
    text: z.string().min(1).max(4096).describe('How the user states the fact when they disclose it.'),
    keywords: z.array(z.string().min(1).max(64)).max(32).default([]).describe('Words in an agent question that make a rule-based user disclose this fact.'),
  })
  .describe('Something only the user knows and the agent needs.');

export const userContextSchema = z
  .strictObject({
    request: z.string().min(1).max(16384).describe('What the user asks for at first, in their own words (may be underspecified on purpose).'),
    facts: z.array(hiddenFactSchema).max(64).default([]).describe('Hidden facts the user knows and the agent has to ask for.'),
    goal: z.string().min(1).max(4096).describe('What success means to the user (never shown to the agent).'),
    requiredFacts: z.array(idSchema).max(64).default([]).describe('Ids of facts the agent must learn for the goal to be reachable; each must exist in `facts`.'),
  })
  .describe('The user side of the task: what they ask, what they know, what they want.');

export const knobsSchema = z
  .record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, 'knob names are identifiers'), z.number().min(0).max(100))
  .default({})
  .describe('Difficulty knobs (0..100), e.g. horizon, hiddenState, feedback, distractors, strictness. Operators move them.');

export const environmentSpecSchema = z
  .strictObject({
    apiVersion: z.literal(specApiVersion).describe('Spec format version; always "coevolve/v1".'),
    kind: z.literal('Environment').describe('Always "Environment" for an environment spec.'),
    id: idSchema,
    title: z.string().min(1).max(200).describe('Short human title shown in trees and dashboards.'),
    family: z.string().min(1).max(64).default('custom').describe('Task family (e.g. "log-triage"); built-in families can regenerate the spec at another difficulty.'),
    instruction: z.string().min(1).max(65536).describe('What the agent is told at the start (instruction.md in Harbor terms).'),
    sandbox: sandboxSchema.default(sandboxSchema.parse({})),
    verifier: verifierSchema,
    oracle: oracleSchema,
    hint: z.string().max(16384).optional().describe('Privileged hint shown only in hint plays; the gap it closes measures regret.'),
    user: userContextSchema,
    difficulty: z.number().min(0).max(100).default(1).describe('Design level (0..100; built-in families use 1..5): the spec\'s own difficulty label, set by its knobs. Not a measurement: the dashboard shows the difficulty measured from outcomes (Rasch, logits) beside it.'),
    knobs: knobsSchema,
    skills: z.array(z.string().min(1).max(64)).max(32).default([]).describe('Skill tags (e.g. "text-processing", "clarification").'),
    lineage: lineageSchema.default({ parent: null, operator: null, generation: 0 }),
    provenance: provenanceSchema.default({}),
  })
  .superRefine((spec, ctx) => {
    const user = field(spec, 'user');
    const factIds = checkUnique(listOf(field(user, 'facts')), 'id', ['user', 'facts'], 'fact id', ctx);
    checkReferences(listOf(field(user, 'requiredFacts')), factIds, ['user', 'requiredFacts'], (id) => `required fact "${id}" is not defined in user.facts`, ctx);
    checkUnique(listOf(field(field(spec, 'sandbox'), 'files')), 'path', ['sandbox', 'files'], 'file path', ctx);
    checkUnique(listOf(field(field(spec, 'verifier'), 'files')), 'path', ['verifier', 'files'], 'file path', ctx);
  }, evenWithOtherErrors)
  .describe('A terminal task environment: sandbox, instruction, verifier, oracle, hint, user context and difficulty knobs.');

export type EnvironmentSpec = z.infer<typeof environmentSpecSchema>;
export type EnvironmentSpecInput = z.input<typeof environmentSpecSchema>;
export type SandboxFile = z.infer<typeof sandboxFileSchema>;
export type SandboxLimits = z.infer<typeof limitsSchema>;
export type HiddenFact = z.infer<typeof hiddenFactSchema>;
