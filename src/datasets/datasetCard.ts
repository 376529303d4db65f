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
  families: string[];
  tags: string[];
  generatedAt: string;
  toolVersion: string;
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
    '## Caveats',
    '',
    'Simulated users can inflate success; compare verifier-only success (`metadata.reward.verifier`) with user-inclusive',
    'success (`metadata.success`). Rollouts from the built-in roles come from a rule-based agent and user, not an LLM.',
    '',
  );
  return lines.join('\n');
}
