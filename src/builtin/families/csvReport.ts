import type { Rng } from '../../core/ports/rng.js';
import { createRng } from '../../core/ports/rng.js';
import type { EnvironmentSpec, HiddenFact, SandboxFile } from '../../core/spec/environment.js';
import { environmentSpecSchema } from '../../core/spec/environment.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { FactSlot, FamilyPlaybook, Knowledge, PlannedCommand, Slip } from '../agent/playbook.js';
import { factOr } from '../agent/playbook.js';
import { shq } from '../shellQuote.js';
import type { GenerateInput, TaskFamily } from './family.js';
import { chooseHidden, difficultyOf, drawContentSeed, environmentId, resolveKnobs, standardKnobs, standardMaxLevel } from './family.js';
import type { FormatRules } from './formatCheck.js';
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import { buildVerifier, builtinRewardFile, textNorm } from './verifierScript.js';

const name = 'csv-report';
const regions = ['north', 'south', 'east', 'west', 'central'];
const products = ['widget', 'gadget', 'gizmo', 'sprocket', 'doohickey'];
const columns = ['date', 'region', 'product', 'units', 'revenue'] as const;
const reportWords = ['sales', 'quarterly', 'board', 'forecast', 'regional'];

const stageText = {
  byName: 'Write one line per group, `<name>,<total>`, sorted by name.',
  byTotal: 'Write one line per group, `<name>,<total>`, largest total first (ties by name).',
  header: 'Start the report with a header line `<group column>,<summed column>`.',
  footer: 'End the report with a line `TOTAL,<sum of all totals>`.',
};

interface Facts {
  column: 'units' | 'revenue';
  group: 'region' | 'product';
  output: string;
}

const factText = {
  column: (f: Facts) => `Sum the \`${f.column}\` column.`,
  group: (f: Facts) => `Group the totals by \`${f.group}\`.`,
  output: (f: Facts) => `Put the report in \`${f.output}\`.`,
};
const vagueText = {
  column: 'Add up the numbers I need.',
  group: 'Break the totals down the way I want.',
  output: 'Put the report where I want it.',
};

function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(csvReport, input);
  const seed = drawContentSeed(rng);
  const r = createRng(seed);
  const facts: Facts = {
    column: r.chance(0.75) ? 'revenue' : 'units',
    group: r.chance(0.7) ? 'product' : 'region',
    output: `out/${r.pick(reportWords)}-${r.int(10, 99)}.csv`,
  };
  // The separator is workspace state: plain commas until decoys appear, then whatever the export tool used.
  const sep = knobs.distractors === 0 ? ',' : r.pick([',', ';', '|']);
  const months = r.shuffle(Array.from({ length: 12 }, (_, i) => i + 1)).slice(0, knobs.distractors + 1);
  const names = months.map((m) => `data/sales-2024-${String(m).padStart(2, '0')}.csv`);
  const live = names[0] as string;
  const rows = salesRows(r);
  const files: SandboxFile[] = [
    { path: live, content: csvText(rows, sep) },
    { path: 'data/README.txt', content: `Monthly sales exports. The current export is ${live.slice('data/'.length)}; the others are kept for reference.\n` },
    ...names.slice(1).map((p) => ({ path: p, content: csvText(salesRows(r), r.pick([',', ';', '|'])) })),
  ];

  const factDefs: HiddenFact[] = [
    { id: 'column', text: factText.column(facts), keywords: ['column', 'sum', 'numbers', 'add up', 'field', 'metric', 'units', 'revenue'] },
    { id: 'group', text: factText.group(facts), keywords: ['group', 'break', 'per ', 'by what', 'category', 'split'] },
    { id: 'output', text: factText.output(facts), keywords: ['output', 'file', 'save', 'write', 'where', 'path', 'put'] },
  ];
  const hidden = chooseHidden(factDefs, knobs.hiddenState, r);
  const h = knobs.horizon;
  const stages = [h >= 2 ? stageText.byTotal : stageText.byName, ...(h >= 3 ? [stageText.header] : []), ...(h >= 4 ? [stageText.footer] : [])];
  const instruction = [
    'Build a sales report from the current monthly export in `data/` (older exports sit next to it).',
    ...factDefs.map((f) => (hidden.has(f.id) ? vagueText[f.id as keyof typeof vagueText] : f.text)),
    ...stages,
    knobs.feedback > 0 ? `Run \`sh ${checkScriptPath} <output file>\` to check the format before you finish.` : '',
  ].filter(Boolean).join('\n');
  if (knobs.feedback > 0) files.push({ path: checkScriptPath, content: buildFormatCheck(formatRules(h), knobs.feedback >= 2), mode: '755' });

  const verifier = buildVerifier(name, knobs.strictness, [
    { key: 'report', label: facts.output, requireFile: facts.output, actual: `cat ${shq(facts.output)}`, expected: expectedReport(rows, facts, h), norm: textNorm(knobs.strictness) },
  ]);
  const sepName = sep === ',' ? 'commas' : sep === ';' ? 'semicolons' : 'pipes';
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `CSV report: ${facts.column} by ${facts.group}, ${h} step(s)`,
    family: name,
    instruction,
    sandbox: { files, setup: ['mkdir -p out'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(live, sep, facts, h) },
    hint: `The current export is ${live}; its fields are separated by ${sepName} and the first line is a header. ${factDefs.map((f) => f.text).join(' ')}`,
    user: {
      request: 'I need the sales report from the latest export.',
      facts: factDefs,
      goal: `${facts.output} holds ${facts.column} totals per ${facts.group} from ${live}.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: input.knobs ? difficultyOf(csvReport, knobs) : (input.level ?? 1),
    knobs,
    skills: csvReport.skills,
    provenance: { source: `builtin:${name}`, author: 'coevolve built-in generator' },
  });
}

type Row = Record<(typeof columns)[number], string>;

function salesRows(r: Rng): Row[] {
  const prices: Record<string, number> = Object.fromEntries(products.map((p) => [p, r.int(3, 90)]));
  return Array.from({ length: r.int(20, 40) }, () => {
    const product = r.pick(products);
    const units = r.int(1, 20);
    return { date: `2024-05-${String(r.int(1, 28)).padStart(2, '0')}`, region: r.pick(regions), product, units: String(units), revenue: String(units * (prices[product] ?? 1)) };
  });
}

const csvText = (rows: Row[], sep: string): string => [columns.join(sep), ...rows.map((row) => columns.map((c) => row[c]).join(sep))].map((l) => `${l}\n`).join('');

const byteCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function expectedReport(rows: Row[], f: Facts, horizon: number): string {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row[f.group], (totals.get(row[f.group]) ?? 0) + Number(row[f.column]));
  const sorted = [...totals].sort((a, b) => (horizon >= 2 ? b[1] - a[1] || byteCompare(a[0], b[0]) : byteCompare(a[0], b[0])));
  const lines = sorted.map(([k, v]) => `${k},${v}`);
  if (horizon >= 3) lines.unshift(`${f.group},${f.column}`);
  if (horizon >= 4) lines.push(`TOTAL,${[...totals.values()].reduce((s, v) => s + v, 0)}`);
  return lines.map((l) => `${l}\n`).join('');
}

function formatRules(horizon: number): FormatRules {
  return {
    data: '^[a-z]+,[0-9]+$',
    sortArgs: horizon >= 2 ? '-t, -k2,2nr -k1,1' : '-t, -k1,1',
    ...(horizon >= 3 ? { header: '^[a-z]+,[a-z]+$' } : {}),
    ...(horizon >= 4 ? { footer: '^TOTAL,[0-9]+$' } : {}),
  };
}

function oracleScript(live: string, sep: string, f: Facts, horizon: number): string {
  const key = columns.indexOf(f.group) + 1, val = columns.indexOf(f.column) + 1;
  const order = horizon >= 2 ? '-t, -k2,2nr -k1,1' : '-t, -k1,1';
  const parts = [
    ...(horizon >= 3 ? [`printf '%s\\n' ${shq(`${f.group},${f.column}`)}`] : []),
    'cat .oracle-rows',
    ...(horizon >= 4 ? [`awk -F, '{ s += $2 } END { print "TOTAL," s }' .oracle-rows`] : []),
  ];
  return ['#!/bin/sh', '# Reference solution: knows the separator, the columns and the output path.', 'set -e', `mkdir -p ${shq(f.output.replace(/\/[^/]*$/, ''))}`,
    `awk -F${shq(`[${sep}]`)} 'NR > 1 { s[$${key}] += $${val} } END { for (k in s) print k "," s[k] }' ${shq(live)} | LC_ALL=C sort ${order} > .oracle-rows`,
    `{ ${parts.join('; ')}; } > ${shq(f.output)}`, 'rm -f .oracle-rows', ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = [
  { id: 'column', question: 'Which column should I sum up?', guess: 'units', parse: (t) => /`(units|revenue)`/.exec(t)?.[1] },
  { id: 'group', question: 'How should I group the totals (per what)?', guess: 'region', parse: (t) => /by `(region|product)`/.exec(t)?.[1] },
  { id: 'output', question: 'Where should I save the report (file path)?', guess: 'out/report.csv', parse: (t) => /`(out\/[A-Za-z0-9._-]+\.csv)`/.exec(t)?.[1] },
];

const playbook: FamilyPlaybook = {
  bestIdiom: 'awk',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    k.stages = (text.includes(stageText.byTotal) ? 2 : 1) + (text.includes(stageText.header) ? 1 : 0) + (text.includes(stageText.footer) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
    k.wanted = slots.map((s) => s.id);
  },
  explore(thorough: boolean, k: Knowledge, step: number): string | undefined {
    if (!thorough) return step === 0 ? 'ls data' : undefined;
    const input = k.found.get('input');
    return ['ls -la data', 'cat data/README.txt', input ? `head -n 3 ${shq(input)}` : undefined][step];
  },
  observe(command: string, output: string, k: Knowledge): void {
    if (command === 'cat data/README.txt') {
      const m = /current export is ([A-Za-z0-9._-]+\.csv)/.exec(output);
      if (m) k.found.set('input', `data/${m[1]}`);
    } else if (command.startsWith('head')) {
      const header = output.split('\n')[0] ?? '';
      const sep = [';', '|', ','].find((s) => header.includes(s));
      if (sep) k.found.set('sep', sep);
    } else if (command.startsWith('ls') && !k.found.has('input')) {
      const first = output.split(/\s+/).filter((w) => /\.csv$/.test(w)).sort()[0];
      if (first) k.found.set('input', `data/${first}`);
    }
  },
  outputPath: (k) => factOr(k, slots, 'output'),
  solve(k, idiom, slip): PlannedCommand[] {
    const input = shq(k.found.get('input') ?? 'data/sales.csv');
    const sep = k.found.get('sep') ?? ',';
    const group = factOr(k, slots, 'group'), column = factOr(k, slots, 'column');
    const key = (columns as readonly string[]).indexOf(group) + 1 || 2;
    const val = (columns as readonly string[]).indexOf(column) + 1 || 4;
    const out = shq(factOr(k, slots, 'output'));
    const sumSlip = slip('sum');
    const skip = sumSlip === 'content' ? 1 : 2; // forgetting the header row adds a bogus group
    const sum = idiom === 'awk'
      ? `awk -F${shq(`[${sep}]`)} 'NR >= ${skip} { s[$${key}] += $${val} } END { for (k in s) print k "," s[k] }' ${input}`
      : `tail -n +${skip} ${input} | cut -d${shq(sep)} -f${key},${val} | tr ${shq(sep)} ' ' | LC_ALL=C sort | { prev=; t=0; while read -r g v; do case "$v" in *[!0-9]*|'') v=0;; esac; if [ -n "$prev" ] && [ "$g" != "$prev" ]; then echo "$prev,$t"; t=0; fi; prev=$g; t=$((t + v)); done; [ -z "$prev" ] || echo "$prev,$t"; }`;
    const sortSlip = slip('sort');
    const right = k.stages >= 2 ? '-t, -k2,2nr -k1,1' : '-t, -k1,1';
    const wrong = k.stages >= 2 ? '-t, -k1,1' : '-t, -k2,2n';
    const trailing = (s: Slip | undefined) => (s === 'space' ? ` | sed 's/$/ /'` : '');
    const cmds: PlannedCommand[] = [
      { stage: 'prepare', command: `mkdir -p .work "$(dirname ${out})"` },
      { stage: 'sum', command: `${sum} | LC_ALL=C sort ${sortSlip === 'order' ? wrong : right}${trailing(sortSlip)} > .work/rows.txt` },
    ];
    const parts: string[] = [];
    if (k.stages >= 3) parts.push(`printf '%s\\n' ${shq(`${group},${column}`)}`);
    parts.push('cat .work/rows.txt');
    if (k.stages >= 4) parts.push(`awk -F, '{ s += $2 } END { print "TOTAL," s }' .work/rows.txt`);
    cmds.push({ stage: 'assemble', command: `{ ${parts.join('; ')}; } > ${out}` });
    return cmds;
  },
};

export const csvReport: TaskFamily = {
  name,
  title: 'CSV report',
  maxLevel: standardMaxLevel,
  knobs: standardKnobs,
  skills: ['data-processing', 'csv', 'clarification'],
  generate,
  playbook,
};
