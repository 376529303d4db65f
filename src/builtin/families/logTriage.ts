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
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import { buildVerifier, builtinRewardFile, textNorm } from './verifierScript.js';

const name = 'log-triage';
const levels = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL'] as const;
const components = ['auth', 'db', 'api', 'cache', 'queue', 'mailer', 'billing', 'search'];
const reportWords = ['incident', 'oncall', 'weekly', 'postmortem', 'summary', 'digest'];
const messages = ['request took too long', 'connection reset by peer', 'retrying operation', 'cache miss storm', 'token expired', 'disk usage high', 'slow query detected', 'queue depth rising', 'handshake failed'];

// Public wording of each output stage; the agent's playbook reads the same sentences back out of the instruction.
const stageText = {
  lines: 'Write the matching log lines, unchanged and in their original order, to the output file.',
  counts: 'Write one line per component, `<count> <component>`, most frequent first (ties by component name).',
  total: 'End the file with a line `total <count>` (the number of matching lines).',
  header: 'Start the file with a header line `# <LEVEL> <HH>:00-<HH>:59` naming the level and the window.',
};

const pad2 = (n: number): string => String(n).padStart(2, '0');

interface Facts {
  level: string;
  from: number;
  to: number;
  output: string;
}

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

function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(logTriage, input);
  const seed = drawContentSeed(rng);
  const r = createRng(seed);
  const facts: Facts = {
    level: r.chance(0.2) ? 'ERROR' : r.pick(['WARN', 'CRITICAL']),
    from: r.int(7, 13),
    to: 0,
    output: `reports/${r.pick(reportWords)}-${r.int(10, 99)}.txt`,
  };
  facts.to = facts.from + r.int(1, 3);

  // Candidate log names; one is live (named in logs/CURRENT), the others are decoys with the same look.
  const days = r.shuffle(Array.from({ length: 20 }, (_, i) => i + 1)).slice(0, knobs.distractors + 1);
  const names = days.map((d) => `logs/service-2024-03-${pad2(d)}.log`);
  const live = names[0] as string;
  const liveLines = logLines(r, facts, true);
  const files: SandboxFile[] = [
    { path: live, content: liveLines.join('\n') + '\n' },
    { path: 'logs/CURRENT', content: `${live.slice('logs/'.length)}\n` },
    ...names.slice(1).map((p) => ({ path: p, content: logLines(r, facts, false).join('\n') + '\n' })),
  ];

  const matching = liveLines.filter((l) => isMatch(l, facts));
  const expected = expectedOutput(matching, facts, knobs.horizon);
  const factDefs: HiddenFact[] = [
    { id: 'level', text: factText.level(facts), keywords: ['level', 'severity', 'which lines', 'kind of', 'error', 'warn', 'filter'] },
    { id: 'window', text: factText.window(facts), keywords: ['time', 'window', 'hour', 'when', 'period', 'range', 'between'] },
    { id: 'output', text: factText.output(facts), keywords: ['output', 'file', 'save', 'write', 'where', 'path', 'put'] },
  ];
  const hidden = chooseHidden(factDefs, knobs.hiddenState, r);
  const stages = stagesFor(knobs.horizon);
  const instruction = [
    'Triage the service log. The live log is in `logs/`; older rotated logs sit next to it.',
    ...factDefs.map((f) => (hidden.has(f.id) ? vagueText[f.id as keyof typeof vagueText] : f.text)),
    ...stages.map((s) => stageText[s]),
    knobs.feedback > 0 ? `Run \`sh ${checkScriptPath} <output file>\` to check the format before you finish.` : '',
  ].filter(Boolean).join('\n');
  if (knobs.feedback > 0) {
    files.push({ path: checkScriptPath, content: buildFormatCheck(formatRules(knobs.horizon), knobs.feedback >= 2), mode: '755' });
  }

  const verifier = buildVerifier(name, knobs.strictness, [
    { key: 'report', label: facts.output, requireFile: facts.output, actual: `cat ${shq(facts.output)}`, expected, norm: textNorm(knobs.strictness) },
  ]);
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `Log triage: ${facts.level} lines ${pad2(facts.from)}-${pad2(facts.to)}h, ${knobs.horizon} step(s)`,
    family: name,
    instruction,
    sandbox: { files, setup: ['mkdir -p reports'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(live, facts, knobs.horizon) },
    hint: `The live log is the file named in logs/CURRENT (${live}). ${factDefs.map((f) => f.text).join(' ')} Filter on the third field (the level), not on the message text.`,
    user: {
      request: 'Can you triage the service log for me?',
      facts: factDefs,
      goal: `${facts.output} holds the ${facts.level} triage of ${live} for ${pad2(facts.from)}:00-${pad2(facts.to)}:59.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: input.knobs ? difficultyOf(logTriage, knobs) : (input.level ?? 1),
    knobs,
    skills: logTriage.skills,
    provenance: { source: `builtin:${name}`, author: 'coevolve built-in generator' },
  });
}

function stagesFor(horizon: number): (keyof typeof stageText)[] {
  if (horizon <= 1) return ['lines'];
  return ['counts', ...(horizon >= 3 ? (['total'] as const) : []), ...(horizon >= 4 ? (['header'] as const) : [])];
}

function formatRules(horizon: number): Parameters<typeof buildFormatCheck>[0] {
  if (horizon <= 1) return { data: '^2024-[0-9-]+ [0-9:]+ [A-Z]+ [a-z]+: ' };
  return {
    data: '^[0-9]+ [a-z]+$',
    sortArgs: '-k1,1nr -k2,2',
    ...(horizon >= 3 ? { footer: '^total [0-9]+$' } : {}),
    ...(horizon >= 4 ? { header: '^# [A-Z]+ [0-9]{2}:00-[0-9]{2}:59$' } : {}),
  };
}

function isMatch(line: string, f: Facts): boolean {
  const [, time, level] = line.split(' ');
  const hour = Number(time?.slice(0, 2));
  return level === f.level && hour >= f.from && hour <= f.to;
}

function logLines(r: Rng, f: Facts, live: boolean): string[] {
  const out: { t: number; text: string }[] = [];
  const n = r.int(30, 60);
  const line = (t: number, level: string, comp: string, msg: string) => ({ t, text: `2024-03-05 ${pad2(Math.floor(t / 3600))}:${pad2(Math.floor(t / 60) % 60)}:${pad2(t % 60)} ${level} ${comp}: ${msg}` });
  for (let i = 0; i < n; i++) out.push(line(r.int(6 * 3600, 19 * 3600 - 1), r.pick(levels), r.pick(components), r.pick(messages)));
  if (live) {
    // Guarantees that make wrong guesses and careless filters visible: matches inside the window, the level
    // outside it, and a message that mentions the level word on another level's line.
    const inWindow = () => r.int(f.from * 3600, f.to * 3600 + 3599);
    for (let i = 0; i < 4; i++) out.push(line(inWindow(), f.level, r.pick(components), r.pick(messages)));
    out.push(line(r.int(6 * 3600, f.from * 3600 - 1), f.level, r.pick(components), r.pick(messages)));
    out.push(line(r.int((f.to + 1) * 3600, 19 * 3600 - 1), 'ERROR', r.pick(components), r.pick(messages)));
    out.push(line(inWindow(), 'INFO', r.pick(components), `upstream reported ${f.level} status`));
    out.push(line(inWindow(), r.pick(levels.filter((l) => l !== f.level)), r.pick(components), r.pick(messages)));
  }
  return out.sort((a, b) => a.t - b.t).map((l) => l.text);
}

function expectedOutput(matching: string[], f: Facts, horizon: number): string {
  if (horizon <= 1) return matching.map((l) => `${l}\n`).join('');
  const counts = new Map<string, number>();
  for (const l of matching) {
    const comp = (l.split(' ')[3] ?? '').replace(/:$/, '');
    counts.set(comp, (counts.get(comp) ?? 0) + 1);
  }
  const rows = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([c, n]) => `${n} ${c}`);
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
  return ['#!/bin/sh', '# Reference solution: knows the level, the window and the output path.', 'set -e', `mkdir -p ${shq(f.output.replace(/\/[^/]*$/, ''))}`,
    `${filter} > .oracle-lines`, `{ ${parts.join('; ')}; } > ${shq(f.output)}`, 'rm -f .oracle-lines', ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = [
  { id: 'level', question: 'Which log level should I keep?', guess: 'ERROR', parse: (t) => /`(DEBUG|INFO|WARN|ERROR|CRITICAL)`/.exec(t)?.[1] },
  { id: 'window', question: 'Which time window (hours) do you mean?', guess: '00-23', parse: (t) => { const m = /`(\d\d):00`[^`]*`(\d\d):59`/.exec(t); return m ? `${m[1]}-${m[2]}` : undefined; } },
  { id: 'output', question: 'Where should I save the result (file path)?', guess: 'reports/triage.txt', parse: (t) => /`(reports\/[A-Za-z0-9._-]+\.txt)`/.exec(t)?.[1] },
];

const playbook: FamilyPlaybook = {
  bestIdiom: 'awk',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    k.stages = text.includes(stageText.lines) ? 1 : 2 + (text.includes(stageText.total) ? 1 : 0) + (text.includes(stageText.header) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
    k.wanted = slots.map((s) => s.id);
  },
  explore(thorough: boolean, _k: Knowledge, step: number): string | undefined {
    return (thorough ? ['ls -la logs', 'cat logs/CURRENT', 'head -n 3 logs/*.log | head -n 30'] : ['ls logs'])[step];
  },
  observe(command: string, output: string, k: Knowledge): void {
    if (command === 'cat logs/CURRENT') {
      const live = output.trim().split('\n')[0];
      if (live && /\.log$/.test(live)) k.found.set('input', `logs/${live}`);
    } else if (command.startsWith('ls') && !k.found.has('input')) {
      const first = output.split(/\s+/).filter((w) => /\.log$/.test(w)).sort()[0];
      if (first) k.found.set('input', `logs/${first}`);
    }
  },
  outputPath: (k) => factOr(k, slots, 'output'),
  solve(k, idiom, slip): PlannedCommand[] {
    const input = shq(k.found.get('input') ?? 'logs/service.log');
    const level = factOr(k, slots, 'level');
    const [fromS, toS] = factOr(k, slots, 'window').split('-');
    const from = Number(fromS), to = Number(toS);
    const hours = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => pad2(from + i));
    const out = shq(factOr(k, slots, 'output'));
    const filterSlip = slip('filter');
    const loose = filterSlip === 'content';
    const filter: Record<typeof idiom, string> = {
      awk: `awk -v lv=${level} -v a=${from} -v b=${to} '${loose ? 'index($0, lv)' : '$3 == lv'} { h = substr($2, 1, 2) + 0; if (h >= a && h <= b) print }' ${input}`,
      grep: `grep -E '^[^ ]+ (${hours.join('|')}):' ${input} | grep ${loose ? '' : '-E '}${shq(loose ? level : `^[^ ]+ [^ ]+ ${level} `)}`,
      sed: `sed -n -E '/^[^ ]+ (${hours.join('|')}):[^ ]+ ${loose ? '.*' : ''}${level} /p' ${input}`,
      shell: `while IFS= read -r line; do set -f; set -- $line; case "$2" in ${hours.map((h) => `${h}:*`).join('|') || 'none'}) ${loose ? `case "$line" in *${level}*) printf '%s\\n' "$line";; esac` : `[ "$3" = ${level} ] && printf '%s\\n' "$line"`};; esac; done < ${input}; true`,
    };
    const cmds: PlannedCommand[] = [
      { stage: 'prepare', command: `mkdir -p .work "$(dirname ${out})"` },
      { stage: 'filter', command: `{ ${filter[idiom]}; } > .work/lines.txt` },
    ];
    const trailing = (s: Slip | undefined) => (s === 'space' ? ` | sed 's/$/ /'` : '');
    if (k.stages <= 1) {
      const s = slip('write');
      cmds.push({ stage: 'write', command: `${s === 'order' ? 'LC_ALL=C sort -k4 .work/lines.txt' : 'cat .work/lines.txt'}${trailing(s)} > ${out}` });
      return cmds;
    }
    const countSlip = slip('count');
    const order = countSlip === 'order' ? 'LC_ALL=C sort -k2,2' : 'LC_ALL=C sort -k1,1nr -k2,2';
    const count = idiom === 'awk'
      ? `awk '{ c = $4; sub(/:$/, "", c); n[c]++ } END { for (k in n) print n[k], k }' .work/lines.txt`
      : `cut -d ' ' -f 4 .work/lines.txt | sed 's/:$//' | LC_ALL=C sort | uniq -c | sed -E 's/^ *([0-9]+) (.*)$/\\1 \\2/'`;
    cmds.push({ stage: 'count', command: `${count} | ${order}${trailing(countSlip)} > .work/counts.txt` });
    const parts: string[] = [];
    if (k.stages >= 4) {
      const s = slip('header');
      parts.push(`printf '# %s %s:00-%s:59${s === 'space' ? ' ' : ''}\\n' ${level} ${pad2(from)} ${pad2(to)}`);
    }
    parts.push('cat .work/counts.txt');
    if (k.stages >= 3) {
      const s = slip('total');
      parts.push(`printf 'total %s\\n' "$(wc -l < ${s === 'content' ? input : '.work/lines.txt'} | tr -d ' ')"`);
    }
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

