import { stringify as stringifyYaml } from 'yaml';
import type { SplitName } from './splits.js';

export type ExportFormat = 'chat-jsonl' | 'atif' | 'harbor';

export interface DatasetCardInput {
  format: ExportFormat;
  runName: string;
  runId: string;
  license: string;
  /** Files per split, as globs or paths relative to the export folder (only non-empty splits). */
  dataFiles: Partial<Record<SplitName, string>>;
  counts: {
    /** Items (rollouts or environments) in the run before filtering. */
    considered: number;
    /** Items left after the filters. */
    selected: number;
    duplicates: number;
    exported: number;
    perSplit: Record<SplitName, number>;
    lineages: Record<SplitName, number>;
    successful?: number;
  };
  filters: string[];
  /** Why items were left out, with counts (hint plays, unsandboxed and infrastructure-error rollouts among them). */
  excluded?: Record<string, number>;
  /** Harbor: rollouts left out of the environments' play statistics, with counts. */
  statsExcluded?: Record<string, number>;
  families: string[];
  tags: string[];
  generatedAt: string;
  toolVersion: string;
  /** Further sections in markdown lines (e.g. which rollouts carry token-level data), before the caveats. */
  sections?: string[];
}

const formatBlurb: Record<ExportFormat, { what: string; categories: string[]; unit: string }> = {
  'chat-jsonl': {
    what: 'OpenAI chat JSONL with tools: one rollout per line as `{"messages", "tools", "metadata"}`. Assistant turns carry `tool_calls` (arguments are JSON strings) and, for reasoning models, `reasoning_content`; tool results are `tool` messages, the simulated user speaks as `user`.',
    categories: ['text-generation'],
    unit: 'rollouts',
  },
  atif: {
    what: 'ATIF v1.7 trajectories (Agent Trajectory Interchange Format), one JSON file per rollout: the steps of the agent, the simulated user embedded as a subagent trajectory, Coevolve metadata under `extra.coevolve`.',
    categories: ['text-generation'],
    unit: 'rollouts',
  },
  harbor: {
    what: 'Harbor task folders (task.toml, instruction.md, environment/Dockerfile, tests/test.sh, solution/solve.sh), one per environment, under `tasks/`. `data/{split}.jsonl` indexes them.',
    categories: ['text-generation'],
    unit: 'environments',
  },
};

const byCount = (m: Record<string, number>): [string, number][] => Object.entries(m).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));

/** What the export left out and why, with counts, so a reader of the dataset knows what it does not hold. */
function leftOutSection(c: DatasetCardInput, unit: string): string[] {
  const excluded = byCount(c.excluded ?? {});
  const stats = byCount(c.statsExcluded ?? {});
  if (excluded.length === 0 && stats.length === 0) return [];
  const lines = ['', '## Left out', ''];
  if (excluded.length > 0) lines.push(`${unit[0]!.toUpperCase()}${unit.slice(1)} of the run not in this dataset, by reason:`, '', ...excluded.map(([why, n]) => `- ${n}: ${why}`));
  if (stats.length > 0) lines.push(...(excluded.length > 0 ? [''] : []), 'Rollouts not counted in the environments\' play statistics (`rollouts`, `success_rate`, `mean_reward`):', '', ...stats.map(([why, n]) => `- ${n}: ${why}`));
  return lines;
}

/** Exported rollouts by how they ended beyond `status`: truncation reason, and `step: reason` of an unfinished step. */
export interface EndingCounts {
  truncated: Record<string, number>;
  unfinished: Record<string, number>;
}

/**
 * Where a rollout's ending is, beyond `status`, with counts; nothing when no exported rollout has a truncation
 * reason or an unfinished step, so the card of an older run (or a run without either) reads as before.
 */
export function endingsCardSection(format: 'chat-jsonl' | 'atif', c: EndingCounts): string[] {
  const truncated = byCount(c.truncated);
  const unfinished = byCount(c.unfinished);
  if (truncated.length === 0 && unfinished.length === 0) return [];
  const at = format === 'atif' ? 'extra.coevolve' : 'metadata';
  const lines = ['## How rollouts ended', ''];
  lines.push(`\`${at}.status\` is \`terminated\` (submitted, or the user stopped), \`truncated\` or \`error\`. A truncated rollout names what ended it in \`${at}.truncation_reason\` (\`turns\`, \`tokens\`, \`wall_clock\`: the run's budgets; \`agent_timeout\`: the environment's own agent timeout, after which the verifier still judged what the agent left; \`context\`: the conversation no longer fit the model's context window).`);
  if (truncated.length > 0) lines.push('', ...truncated.map(([why, n]) => `- ${n}: ${why}`));
  lines.push('', `\`${at}.unfinished\` (\`{step, reason, note}\`) names a step after the agent's episode that did not finish (verification, the user's rating or the judge's tags): the reward lacks what it would have given (no verifier outcome counts as reward 0, no rating as the goal not met, no tags as rubric 0), while \`status\` still says how the episode ended.`);
  if (unfinished.length > 0) lines.push('', ...unfinished.map(([what, n]) => `- ${n}: ${what}`));
  lines.push('');
  return lines;
}

/** The hub's size buckets. */
function sizeCategory(n: number): string {
  const buckets: [number, string][] = [[1e3, 'n<1K'], [1e4, '1K<n<10K'], [1e5, '10K<n<100K'], [1e6, '100K<n<1M'], [1e7, '1M<n<10M']];
  return buckets.find(([limit]) => n < limit)?.[1] ?? 'n>10M';
}

/** README.md with the YAML header the Hugging Face hub reads (configs / data_files per split) and a human summary. */
export function renderDatasetCard(c: DatasetCardInput): string {
  const blurb = formatBlurb[c.format];
  const dataFiles = (Object.entries(c.dataFiles) as [SplitName, string][]).map(([split, path]) => ({ split, path }));
  const header: Record<string, unknown> = {
    license: c.license,
    task_categories: blurb.categories,
    tags: [...new Set(['coevolve', 'agents', 'terminal', 'user-simulation', c.format, ...c.tags])],
    size_categories: [sizeCategory(c.counts.exported)],
    pretty_name: `${c.runName} (${c.format})`,
    configs: [{ config_name: 'default', data_files: dataFiles }],
  };
  const n = c.counts;
  const rows = (['train', 'validation', 'test'] as const).map((s) => `| ${s} | ${n.perSplit[s]} | ${n.lineages[s]} |`);
  const lines = [
    '---',
    stringifyYaml(header).trimEnd(),
    '---',
    '',
    `# ${c.runName} — ${c.format}`,
    '',
    `Exported by Coevolve ${c.toolVersion} on ${c.generatedAt} from run \`${c.runId}\`.`,
    '',
    blurb.what,
    '',
    '## Contents',
    '',
    `- ${n.considered} ${blurb.unit} in the run; ${n.selected} passed the filters; ${n.duplicates} duplicates removed; **${n.exported} exported**.`,
  ];
  if (n.successful !== undefined) lines.push(`- ${n.successful} of the exported rollouts succeeded (verifier passed and the user's goal met).`);
  lines.push(`- Filters: ${c.filters.length > 0 ? c.filters.join('; ') : 'none'}.`);
  if (c.families.length > 0) lines.push(`- Task families: ${c.families.join(', ')}.`);
  lines.push(...leftOutSection(c, blurb.unit));
  lines.push(
    '',
    '## Splits',
    '',
    'Splits are assigned by environment lineage root (a deterministic hash of the seed an environment descends from), so',
    'an environment and its mutated relatives are always in the same split.',
    '',
    '| split | items | lineages |',
    '|---|---|---|',
    ...rows,
    '',
    ...(c.sections ?? []),
    '## Caveats',
    '',
    'Simulated users can inflate success; compare verifier-only success (`metadata.reward.verifier`) with user-inclusive',
    'success (`metadata.success`). Rollouts from the built-in roles come from a rule-based agent and user, not an LLM.',
    '',
  );
  return lines.join('\n');
}
