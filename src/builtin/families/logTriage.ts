import type { Rng } from '../../core/ports/rng.js';
import type { EnvironmentSpec, HiddenFact, SandboxFile } from '../../core/spec/environment.js';
import { environmentSpecSchema } from '../../core/spec/environment.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { CommandIdiom, FactSlot, FamilyPlaybook, Knowledge, PlannedCommand, Slip, StageDef } from '../agent/playbook.js';
import { factOr, listedFiles } from '../agent/playbook.js';
import { posix } from 'node:path';
import { shq } from '../shellQuote.js';
import type { GenerateInput, TaskFamily } from './family.js';
import { builtinSource, chooseHidden, contentStreams, difficultyOf, drawContentSeed, environmentId, resolveKnobs, standardKnobs, standardMaxLevel } from './family.js';
import type { FormatRules } from './formatCheck.js';
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import { buildVerifier, builtinRewardFile, textNorm } from './verifierScript.js';

const name = 'log-triage';
const levels = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL'] as const;
const components = ['auth', 'db', 'api', 'cache', 'queue', 'mailer', 'billing', 'search'];
const reportWords = ['incident', 'oncall', 'weekly', 'postmortem', 'summary', 'digest'];
const messages = ['request took too long', 'connection reset by peer', 'retrying operation', 'cache miss storm', 'token expired', 'disk usage high', 'slow query detected', 'queue depth rising', 'handshake failed'];
const rotatedMarker = '# rotated: archived copy, not the live log';

// Public wording of each output stage; the agent's playbook reads the same sentences back out of the instruction.
const intro = 'Triage the service log. The live log is in `logs/`; rotated copies sit next to it, each starting with a `# rotated` line: leave those out.';
const stageText = {
  lines: 'Write the matching log lines, unchanged and in their original order, to the output file.',
  counts: 'Write one line per component, `<count> <component>`, most frequent first (ties by component name).',
  total: 'After the counts, add a line `total <count>` (the number of matching lines).',
  header: 'Start the file with a header line `# <LEVEL> <HH>:00-<HH>:59` naming the level and the window.',
};

const pad2 = (n: number): string => String(n).padStart(2, '0');

interface Facts { level: string; from: number; to: number; output: string }

const factText = {
  level: (f: Facts) => `I only care about the \`${f.level}\` lines.`,
  window: (f: Facts) => `Only entries from \`${pad2(f.from)}:00\` to \`${pad2(f.to)}:59\` count.`,
  output: (f: Facts) => `Save the result as \`${f.output}\`.`,
};
const vagueText = {
  level: 'Keep only the lines of the level I care about.',
  window: 'Only the time window I have in mind counts.',
  output: 'Save the result where I want it.',
};

function drawFacts(r: Rng): Facts {
  const from = r.int(7, 13);
  return { level: r.chance(0.2) ? 'ERROR' : r.pick(['WARN', 'CRITICAL']), from, to: from + r.int(1, 3), output: `reports/${r.pick(reportWords)}-${r.int(10, 99)}.txt` };
}

/**
 * Knobs: horizon = output stages (lines; counts; + total; + header), hiddenState = facts left to the user,
 * distractors = rotated copies next to the live log (each one the agent does not look at ends up in its input),
 * feedback = check.sh verbose/terse/none, strictness = verifier tolerance. Every aspect draws from its own stream of
 * the content seed, so a knob step changes only what that knob controls.
 */
function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(logTriage, input);
  const seed = input.contentSeed ?? drawContentSeed(rng);
  const c = contentStreams(seed);
  const facts = drawFacts(c('facts'));
  const h = knobs.horizon;
  // One live log and up to six rotated copies; copy i always has lines that match, so using it changes the result.
  const names = c('names').shuffle(Array.from({ length: 20 }, (_, i) => `logs/service-2024-03-${pad2(i + 1)}.log`));
  const live = names[0] as string;
  const liveLines = logLines(c('live'), facts);
  const files: SandboxFile[] = [
    { path: live, content: liveLines.join('\n') + '\n' },
    ...names.slice(1, knobs.distractors + 1).map((p, i) => ({ path: p, content: [rotatedMarker, ...logLines(c(`decoy-${i}`), facts)].join('\n') + '\n' })),
  ];

  const factDefs: HiddenFact[] = [
    { id: 'level', text: factText.level(facts), keywords: ['level', 'severity', 'which lines', 'kind of', 'error', 'warn', 'filter'] },
    { id: 'window', text: factText.window(facts), keywords: ['time', 'window', 'hour', 'when', 'period', 'range', 'between'] },
    { id: 'output', text: factText.output(facts), keywords: ['output', 'file', 'save', 'write', 'where', 'path', 'put'] },
  ];
  const hidden = chooseHidden(factDefs, knobs.hiddenState, c('hidden'));
  const instruction = [
    intro,
    ...factDefs.map((f) => (hidden.has(f.id) ? vagueText[f.id as keyof typeof vagueText] : f.text)),
    ...stagesFor(h).map((s) => stageText[s]),
    knobs.feedback > 0 ? `Run \`sh ${checkScriptPath} <output file>\` to check the format before you finish.` : '',
  ].filter(Boolean).join('\n');
  if (knobs.feedback > 0) files.push({ path: checkScriptPath, content: buildFormatCheck(formatRules(h), knobs.feedback >= 2), mode: '755' });

  const matching = liveLines.filter((l) => isMatch(l, facts));
  const verifier = buildVerifier(name, knobs.strictness, [
    { key: 'report', label: facts.output, requireFile: facts.output, actual: { file: facts.output }, expected: expectedOutput(matching, facts, h), norm: textNorm(knobs.strictness) },
  ]);
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `Log triage: ${facts.level} lines ${pad2(facts.from)}-${pad2(facts.to)}h, ${h} step(s)`,
    family: name,
    instruction,
    sandbox: { files, setup: ['mkdir -p reports'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(live, facts, h) },
    hint: `The live log is ${live}; every other log in logs/ is a rotated copy. ${factDefs.map((f) => f.text).join(' ')} Filter on the third field (the level), not on the message text.`,
    user: {
      request: 'Can you triage the service log for me?',
      facts: factDefs,
      goal: `${facts.output} holds the ${facts.level} triage of ${live} for ${pad2(facts.from)}:00-${pad2(facts.to)}:59.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: difficultyOf(logTriage, knobs),
    knobs,
    skills: logTriage.skills,
    provenance: { source: builtinSource(name, seed), author: 'coevolve built-in generator' },
  });
}

function stagesFor(horizon: number): (keyof typeof stageText)[] {
  if (horizon <= 1) return ['lines'];
  return [...(horizon >= 4 ? (['header'] as const) : []), 'counts', ...(horizon >= 3 ? (['total'] as const) : [])];
}

function formatRules(horizon: number): FormatRules {
  if (horizon <= 1) return { data: '^2024-[0-9-]+ [0-9:]+ [A-Z]+ [a-z]+: ', sortArgs: '-s -k2,2' };
  return {
    data: '^[0-9]+ [a-z]+$',
    sortArgs: '-k1,1nr -k2,2',
    ...(horizon >= 3 ? { footers: ['^total [0-9]+$'] } : {}),
    ...(horizon >= 4 ? { header: '^# [A-Z]+ [0-9]{2}:00-[0-9]{2}:59$' } : {}),
  };
}

function isMatch(line: string, f: Facts): boolean {
  const [, time, level] = line.split(' ');
  const hour = Number(time?.slice(0, 2));
  return level === f.level && hour >= f.from && hour <= f.to;
}

/**
 * A day of log lines with guarantees that make wrong guesses and careless filters visible: matches inside the
 * window, the level outside it, and a message that mentions the level word on another level's line.
 */
function logLines(r: Rng, f: Facts): string[] {
  const out: { t: number; text: string }[] = [];
  const line = (t: number, level: string, comp: string, msg: string) => ({ t, text: `2024-03-05 ${pad2(Math.floor(t / 3600))}:${pad2(Math.floor(t / 60) % 60)}:${pad2(t % 60)} ${level} ${comp}: ${msg}` });
  const n = r.int(30, 60);
  for (let i = 0; i < n; i++) out.push(line(r.int(6 * 3600, 19 * 3600 - 1), r.pick(levels), r.pick(components), r.pick(messages)));
  const inWindow = () => r.int(f.from * 3600, f.to * 3600 + 3599);
  for (let i = 0; i < 4; i++) out.push(line(inWindow(), f.level, r.pick(components), r.pick(messages)));
  out.push(line(r.int(6 * 3600, f.from * 3600 - 1), f.level, r.pick(components), r.pick(messages)));
  out.push(line(r.int((f.to + 1) * 3600, 19 * 3600 - 1), 'ERROR', r.pick(components), r.pick(messages)));
  out.push(line(inWindow(), 'INFO', r.pick(components), `upstream reported ${f.level} status`));
  out.push(line(inWindow(), r.pick(levels.filter((l) => l !== f.level)), r.pick(components), r.pick(messages)));
  return out.sort((a, b) => a.t - b.t).map((l) => l.text);
}

const byteCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function expectedOutput(matching: string[], f: Facts, horizon: number): string {
  if (horizon <= 1) return matching.map((l) => `${l}\n`).join('');
  const counts = new Map<string, number>();
  for (const l of matching) {
    const comp = (l.split(' ')[3] ?? '').replace(/:$/, '');
    counts.set(comp, (counts.get(comp) ?? 0) + 1);
  }
  const rows = [...counts].sort((a, b) => b[1] - a[1] || byteCompare(a[0], b[0])).map(([c, n]) => `${n} ${c}`);
  if (horizon >= 4) rows.unshift(`# ${f.level} ${pad2(f.from)}:00-${pad2(f.to)}:59`);
  if (horizon >= 3) rows.push(`total ${matching.length}`);
  return rows.map((l) => `${l}\n`).join('');
}

function oracleScript(live: string, f: Facts, horizon: number): string {
  const filter = `awk -v lv=${f.level} -v a=${f.from} -v b=${f.to} '$3 == lv { h = substr($2, 1, 2) + 0; if (h >= a && h <= b) print }' ${shq(live)}`;
  const counts = `awk '{ c = $4; sub(/:$/, "", c); n[c]++ } END { for (k in n) print n[k], k }' .oracle-lines | LC_ALL=C sort -k1,1nr -k2,2`;
  const parts = horizon <= 1
    ? ['cat .oracle-lines']
    : [
        ...(horizon >= 4 ? [`printf '# %s %s:00-%s:59\\n' ${f.level} ${pad2(f.from)} ${pad2(f.to)}`] : []),
        counts,
        ...(horizon >= 3 ? [`printf 'total %s\\n' "$(wc -l < .oracle-lines | tr -d ' ')"`] : []),
      ];
  return ['#!/bin/sh', '# Reference solution: knows the level, the window, the output path and the live log.', 'set -e', `mkdir -p ${shq(f.output.replace(/\/[^/]*$/, ''))}`,
    `${filter} > .oracle-lines`, `{ ${parts.join('; ')}; } > ${shq(f.output)}`, 'rm -f .oracle-lines', ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = [
  { id: 'level', question: 'Which log level should I keep?', guess: 'ERROR', parse: (t) => /`(DEBUG|INFO|WARN|ERROR|CRITICAL)`/.exec(t)?.[1] },
  { id: 'window', question: 'Which time window (hours) do you mean?', guess: '00-23', parse: (t) => { const m = /`(\d\d):00`[^`]*`(\d\d):59`/.exec(t); return m ? `${m[1]}-${m[2]}` : undefined; } },
  { id: 'output', question: 'Where should I save the result (file path)?', guess: 'reports/triage.txt', parse: (t) => /`(reports\/[A-Za-z0-9._-]+\.txt)`/.exec(t)?.[1] },
];

const trailing = (s: Slip | undefined): string => (s === 'space' ? ` | sed 's/$/ /'` : '');

function filterCommand(k: Knowledge, idiom: CommandIdiom, loose: boolean): string {
  const input = k.inputs.length ? k.inputs.map(shq).join(' ') : 'logs/*.log';
  const level = factOr(k, slots, 'level');
  const [fromS, toS] = factOr(k, slots, 'window').split('-');
  const from = Number(fromS), to = Number(toS);
  const hours = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => pad2(from + i));
  const filter: Record<typeof idiom, string> = {
    awk: `awk -v lv=${level} -v a=${from} -v b=${to} '${loose ? 'index($0, lv)' : '$3 == lv'} { h = substr($2, 1, 2) + 0; if (h >= a && h <= b) print }'`,
    grep: `grep -E '^[^ ]+ (${hours.join('|')}):' | grep ${loose ? '' : '-E '}${shq(loose ? level : `^[^ ]+ [^ ]+ ${level} `)}`,
    sed: `sed -n -E '/^[^ ]+ (${hours.join('|')}):[^ ]+ ${loose ? '.*' : ''}${level} /p'`,
    shell: `while IFS= read -r line; do set -f; set -- $line; case "$2" in ${hours.map((hh) => `${hh}:*`).join('|') || 'none'}) ${loose ? `case "$line" in *${level}*) printf '%s\\n' "$line";; esac` : `[ "$3" = ${level} ] && printf '%s\\n' "$line"`};; esac; done; true`,
  };
  return `cat ${input} | { ${filter[idiom]}; } > .work/lines.txt`;
}

const playbook: FamilyPlaybook = {
  bestIdiom: 'awk',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    k.stages = text.includes(stageText.lines) ? 1 : 2 + (text.includes(stageText.total) ? 1 : 0) + (text.includes(stageText.header) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
    k.wanted = slots.map((s) => s.id);
  },
  survey: 'ls logs',
  candidates: (output) => listedFiles(output, 'logs', /\.log$/),
  inspect: (path) => `head -n 1 ${shq(path)}`,
  observeInspect: (_path, output) => (output.startsWith('# rotated') ? 'decoy' : 'input'),
  stages(k): StageDef[] {
    // The ordering stage has one name at every horizon, so its draws stay paired across a horizon step.
    if (k.stages <= 1) return [{ name: 'filter', slips: ['content'] }, { name: 'sort', slips: ['order', 'space'] }];
    return [
      { name: 'filter', slips: ['content'] },
      { name: 'count', slips: ['content', 'space'] },
      { name: 'sort', slips: ['order', 'space'] },
      ...(k.stages >= 3 ? [{ name: 'total', slips: ['content', 'order', 'space'] as Slip[] }] : []),
      ...(k.stages >= 4 ? [{ name: 'header', slips: ['content', 'order', 'space'] as Slip[] }] : []),
    ];
  },
  outputPath: (k) => factOr(k, slots, 'output'),
  solve(k, idiom, slip): PlannedCommand[] {
    const out = shq(factOr(k, slots, 'output'));
    const cmds: PlannedCommand[] = [
      { stage: 'prepare', command: `mkdir -p .work ${shq(posix.dirname(factOr(k, slots, 'output')))}` },
      { stage: 'filter', command: filterCommand(k, idiom, slip('filter') === 'content') },
    ];
    if (k.stages <= 1) {
      const s = slip('sort');
      cmds.push({ stage: 'sort', command: `${s === 'order' ? 'LC_ALL=C sort -k4 .work/lines.txt' : 'cat .work/lines.txt'}${trailing(s)} > ${out}` });
      return cmds;
    }
    const countSlip = slip('count');
    const field = countSlip === 'content' ? '$3' : '$4';
    // A misordered count list: by name, backwards (counts are often tied, so sorting by name alone is often right).
    const sortSlip = slip('sort');
    const count = idiom === 'awk'
      ? `awk '{ c = ${field}; sub(/:$/, "", c); n[c]++ } END { for (k in n) print n[k], k }' .work/lines.txt`
      : `cut -d ' ' -f ${field.slice(1)} .work/lines.txt | sed 's/:$//' | LC_ALL=C sort | uniq -c | sed -E 's/^ *([0-9]+) (.*)$/\\1 \\2/'`;
    const indent = countSlip === 'space' ? ` | sed 's/^/ /'` : '';
    cmds.push({ stage: 'count', command: `${count} | LC_ALL=C sort ${sortSlip === 'order' ? '-k2,2r' : '-k1,1nr -k2,2'}${indent}${trailing(sortSlip)} > .work/counts.txt` });
    const [fromS, toS] = factOr(k, slots, 'window').split('-');
    const header = slip('header');
    const headerLine = `printf '# %s %s:00-%s:${header === 'content' ? '00' : '59'}${header === 'space' ? ' ' : ''}\\n' ${factOr(k, slots, 'level')} ${fromS} ${toS}`;
    const total = slip('total');
    // grep -c '' counts the lines (every file here ends in a newline, so it is what `wc -l | tr -d ' '` counted).
    const totalLine = `printf 'total %s${total === 'space' ? ' ' : ''}\\n' "$(${total === 'content' ? `cat ${k.inputs.map(shq).join(' ') || 'logs/*.log'} | grep -c ''` : "grep -c '' .work/lines.txt"})"`;
    const parts = ['cat .work/counts.txt'];
    if (k.stages >= 3) total === 'order' ? parts.unshift(totalLine) : parts.push(totalLine);
    if (k.stages >= 4) header === 'order' ? parts.push(headerLine) : parts.unshift(headerLine);
    cmds.push({ stage: 'assemble', command: `{ ${parts.join('; ')}; } > ${out}` });
    return cmds;
  },
};

export const logTriage: TaskFamily = {
  name,
  title: 'Log triage',
  maxLevel: standardMaxLevel,
  knobs: standardKnobs,
  skills: ['text-processing', 'log-analysis', 'clarification'],
  generate,
  playbook,
};
