import type { Rng } from '../../core/ports/rng.js';
import type { EnvironmentSpec, HiddenFact, SandboxFile } from '../../core/spec/environment.js';
import { environmentSpecSchema } from '../../core/spec/environment.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { FactSlot, FamilyPlaybook, Knowledge, PlannedCommand, Slip, StageDef } from '../agent/playbook.js';
import { factOr, listedFiles } from '../agent/playbook.js';
import { posix } from 'node:path';
import { shq } from '../shellQuote.js';
import type { GenerateInput, TaskFamily } from './family.js';
import { builtinSource, chooseHidden, contentStreams, difficultyOf, drawContentSeed, environmentId, resolveKnobs, standardKnobs, standardMaxLevel } from './family.js';
import type { FormatRules } from './formatCheck.js';
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import { buildVerifier, builtinRewardFile, textNorm } from './verifierScript.js';

const name = 'csv-report';
const regions = ['north', 'south', 'east', 'west', 'central'];
const products = ['widget', 'gadget', 'gizmo', 'sprocket', 'doohickey'];
const columns = ['date', 'region', 'product', 'units', 'revenue'] as const;
const reportWords = ['sales', 'quarterly', 'board', 'forecast', 'regional'];
const supersededMarker = '# superseded export: do not use';

const intro = 'Build a sales report from the current monthly export in `data/`. Superseded exports sit next to it, each starting with a `# superseded` line: leave those out.';
const stageText = {
  groups: 'Write one line per group, `<name>,<total>`, largest total first (ties by name).',
  header: 'Start the report with a header line `<group column>,<summed column>`.',
  total: 'After the groups, add a line `TOTAL,<sum of all totals>`.',
  rows: 'End the report with a line `ROWS,<number of data rows summed>`.',
};

interface Facts { column: 'units' | 'revenue'; group: 'region' | 'product'; output: string }

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

/**
 * Knobs: horizon = report parts (groups; + header; + TOTAL; + ROWS), hiddenState = facts left to the user,
 * distractors = superseded exports next to the current one (each one the agent does not look at ends up in its
 * sums), feedback = check.sh verbose/terse/none, strictness = verifier tolerance. The separator of the export is
 * a workspace fact at every setting: only a look at the file tells it.
 */
function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(csvReport, input);
  const seed = input.contentSeed ?? drawContentSeed(rng);
  const c = contentStreams(seed);
  const fr = c('facts');
  const facts: Facts = { column: fr.chance(0.75) ? 'revenue' : 'units', group: fr.chance(0.7) ? 'product' : 'region', output: `out/${fr.pick(reportWords)}-${fr.int(10, 99)}.csv` };
  const sr = c('separator');
  const sep = sr.chance(0.5) ? ',' : sr.pick([';', '|']);
  const names = c('names').shuffle(Array.from({ length: 12 }, (_, i) => `data/sales-2024-${String(i + 1).padStart(2, '0')}.csv`));
  const live = names[0] as string;
  const rows = salesRows(c('live'));
  const files: SandboxFile[] = [
    { path: live, content: csvText(rows, sep) },
    ...names.slice(1, knobs.distractors + 1).map((p, i) => ({ path: p, content: `${supersededMarker}\n${csvText(salesRows(c(`decoy-${i}`)), sep)}` })),
  ];

  const factDefs: HiddenFact[] = [
    { id: 'column', text: factText.column(facts), keywords: ['column', 'sum', 'numbers', 'add up', 'field', 'metric', 'units', 'revenue'] },
    { id: 'group', text: factText.group(facts), keywords: ['group', 'break', 'per ', 'by what', 'category', 'split'] },
    { id: 'output', text: factText.output(facts), keywords: ['output', 'file', 'save', 'write', 'where', 'path', 'put'] },
  ];
  const hidden = chooseHidden(factDefs, knobs.hiddenState, c('hidden'));
  const h = knobs.horizon;
  const instruction = [
    intro,
    ...factDefs.map((f) => (hidden.has(f.id) ? vagueText[f.id as keyof typeof vagueText] : f.text)),
    ...(h >= 2 ? [stageText.header] : []), stageText.groups, ...(h >= 3 ? [stageText.total] : []), ...(h >= 4 ? [stageText.rows] : []),
    knobs.feedback > 0 ? `Run \`sh ${checkScriptPath} <output file>\` to check the format before you finish.` : '',
  ].filter(Boolean).join('\n');
  if (knobs.feedback > 0) files.push({ path: checkScriptPath, content: buildFormatCheck(formatRules(h), knobs.feedback >= 2), mode: '755' });

  const verifier = buildVerifier(name, knobs.strictness, [
    { key: 'report', label: facts.output, requireFile: facts.output, actual: { file: facts.output }, expected: expectedReport(rows, facts, h), norm: textNorm(knobs.strictness) },
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
    difficulty: difficultyOf(csvReport, knobs),
    knobs,
    skills: csvReport.skills,
    provenance: { source: builtinSource(name, seed), author: 'coevolve built-in generator' },
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

const csvText = (rows: Row[], sep: string): string => [columns.join(sep), ...rows.map((row) => columns.map((col) => row[col]).join(sep))].map((l) => `${l}\n`).join('');

const byteCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function expectedReport(rows: Row[], f: Facts, horizon: number): string {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row[f.group], (totals.get(row[f.group]) ?? 0) + Number(row[f.column]));
  const lines = [...totals].sort((a, b) => b[1] - a[1] || byteCompare(a[0], b[0])).map(([k, v]) => `${k},${v}`);
  if (horizon >= 2) lines.unshift(`${f.group},${f.column}`);
  if (horizon >= 3) lines.push(`TOTAL,${[...totals.values()].reduce((s, v) => s + v, 0)}`);
  if (horizon >= 4) lines.push(`ROWS,${rows.length}`);
  return lines.map((l) => `${l}\n`).join('');
}

function formatRules(horizon: number): FormatRules {
  const footers = [...(horizon >= 3 ? ['^TOTAL,[0-9]+$'] : []), ...(horizon >= 4 ? ['^ROWS,[0-9]+$'] : [])];
  return { data: '^[a-z]+,[0-9]+$', sortArgs: '-t, -k2,2nr -k1,1', ...(horizon >= 2 ? { header: '^[a-z]+,[a-z]+$' } : {}), ...(footers.length ? { footers } : {}) };
}

function oracleScript(live: string, sep: string, f: Facts, horizon: number): string {
  const key = columns.indexOf(f.group) + 1, val = columns.indexOf(f.column) + 1;
  const parts = [
    ...(horizon >= 2 ? [`printf '%s\\n' ${shq(`${f.group},${f.column}`)}`] : []),
    'cat .oracle-rows',
    ...(horizon >= 3 ? [`awk -F, '{ s += $2 } END { print "TOTAL," s }' .oracle-rows`] : []),
    ...(horizon >= 4 ? [`printf 'ROWS,%s\\n' "$(($(wc -l < ${shq(live)}) - 1))"`] : []),
  ];
  return ['#!/bin/sh', '# Reference solution: knows the current export, its separator, the columns and the output path.', 'set -e', `mkdir -p ${shq(f.output.replace(/\/[^/]*$/, ''))}`,
    `awk -F${shq(`[${sep}]`)} 'NR > 1 { s[$${key}] += $${val} } END { for (k in s) print k "," s[k] }' ${shq(live)} | LC_ALL=C sort -t, -k2,2nr -k1,1 > .oracle-rows`,
    `{ ${parts.join('; ')}; } > ${shq(f.output)}`, 'rm -f .oracle-rows', ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = [
  { id: 'column', question: 'Which column should I sum up?', guess: 'units', parse: (t) => /`(units|revenue)`/.exec(t)?.[1] },
  { id: 'group', question: 'How should I group the totals (per what)?', guess: 'region', parse: (t) => /by `(region|product)`/.exec(t)?.[1] },
  { id: 'output', question: 'Where should I save the report (file path)?', guess: 'out/report.csv', parse: (t) => /`(out\/[A-Za-z0-9._-]+\.csv)`/.exec(t)?.[1] },
];

const trailing = (s: Slip | undefined): string => (s === 'space' ? ` | sed 's/$/ /'` : '');
const line = (text: string, s: Slip | undefined): string => `printf '%s\\n' ${shq(`${text}${s === 'space' ? ' ' : ''}`)}`;

const playbook: FamilyPlaybook = {
  bestIdiom: 'awk',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    k.stages = 1 + (text.includes(stageText.header) ? 1 : 0) + (text.includes(stageText.total) ? 1 : 0) + (text.includes(stageText.rows) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
    k.wanted = slots.map((s) => s.id);
  },
  survey: 'ls data',
  candidates: (output) => listedFiles(output, 'data', /\.csv$/),
  inspect: (path) => `head -n 2 ${shq(path)}`,
  observeInspect(path, output, k) {
    if (output.startsWith('# superseded')) return 'decoy';
    const header = output.split('\n')[0] ?? '';
    const sep = [';', '|', ','].find((s) => header.includes(s));
    if (sep) k.found.set(`sep:${path}`, sep);
    return 'input';
  },
  stages(k): StageDef[] {
    const all: Slip[] = ['content', 'order', 'space'];
    return [
      { name: 'sum', slips: ['content'] },
      { name: 'sort', slips: ['order', 'space'] },
      ...(k.stages >= 2 ? [{ name: 'header', slips: all }] : []),
      ...(k.stages >= 3 ? [{ name: 'total', slips: all }] : []),
      ...(k.stages >= 4 ? [{ name: 'rows', slips: all }] : []),
    ];
  },
  outputPath: (k) => factOr(k, slots, 'output'),
  solve(k, idiom, slip): PlannedCommand[] {
    const inputs = k.inputs.length ? k.inputs : ['data/sales.csv'];
    const input = inputs.map(shq).join(' ');
    const sep = k.found.get(`sep:${inputs[0]}`) ?? ',';
    const group = factOr(k, slots, 'group'), column = factOr(k, slots, 'column');
    const key = (columns as readonly string[]).indexOf(group) + 1 || 2;
    const val = (columns as readonly string[]).indexOf(column) + 1 || 4;
    const out = shq(factOr(k, slots, 'output'));
    // Forgetting the header row adds a bogus group; every input's header counts.
    const withHeader = slip('sum') === 'content';
    const lastFilter = withHeader ? `'^#'` : shq(`^${columns.join(sep).replace(/\|/g, '[|]')}$`);
    const filters = (count: boolean): string => `cat ${input} | ${withHeader ? '' : `grep -v '^#' | `}grep -v${count ? 'c' : ''} ${lastFilter}`;
    const body = filters(false);
    const sum = idiom === 'awk'
      ? `${body} | awk -F${shq(`[${sep}]`)} '{ s[$${key}] += $${val} } END { for (k in s) print k "," s[k] }'`
      : `${body} | cut -d${shq(sep)} -f${key},${val} | tr ${shq(sep)} ' ' | LC_ALL=C sort | { prev=; t=0; while read -r g v; do case "$v" in *[!0-9]*|'') v=0;; esac; if [ -n "$prev" ] && [ "$g" != "$prev" ]; then echo "$prev,$t"; t=0; fi; prev=$g; t=$((t + v)); done; [ -z "$prev" ] || echo "$prev,$t"; }`;
    const sortSlip = slip('sort');
    const cmds: PlannedCommand[] = [
      { stage: 'prepare', command: `mkdir -p .work ${shq(posix.dirname(factOr(k, slots, 'output')))}` },
      { stage: 'sum', command: `${sum} | LC_ALL=C sort ${sortSlip === 'order' ? '-t, -k1,1' : '-t, -k2,2nr -k1,1'}${trailing(sortSlip)} > .work/rows.txt` },
      // grep -c counts what the body's last grep lets through (what `| wc -l | tr -d ' '` counted).
      { stage: 'count', command: `${filters(true)} > .work/n.txt` },
    ];
    const header = slip('header'), total = slip('total'), rows = slip('rows');
    const parts = ['cat .work/rows.txt'];
    if (k.stages >= 2) {
      const text = header === 'content' ? `${column},${group}` : `${group},${column}`;
      header === 'order' ? parts.push(line(text, header)) : parts.unshift(line(text, header));
    }
    const tail: string[] = [];
    if (k.stages >= 3) {
      const t = `awk -F, '{ s += ${total === 'content' ? '1' : '$2'} } END { printf "TOTAL,%s${total === 'space' ? ' ' : ''}\\n", s }' .work/rows.txt`;
      total === 'order' ? parts.splice(k.stages >= 2 && header !== 'order' ? 1 : 0, 0, t) : tail.push(t);
    }
    if (k.stages >= 4) {
      const r = `read -r n < .work/n.txt; printf 'ROWS,%s${rows === 'space' ? ' ' : ''}\\n' "$((n${rows === 'content' ? ' + 1' : ''}))"`;
      rows === 'order' ? parts.splice(k.stages >= 2 && header !== 'order' ? 1 : 0, 0, r) : tail.push(r);
    }
    cmds.push({ stage: 'assemble', command: `{ ${[...parts, ...tail].join('; ')}; } > ${out}` });
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
