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

const name = 'file-organize';
const stems = ['holiday', 'invoice', 'scan', 'notes', 'budget', 'photo', 'slides', 'contract', 'recipe', 'letter', 'plan', 'minutes'];
const extensions = ['jpg', 'JPG', 'pdf', 'PDF', 'txt', 'csv', 'png', 'md'];
const targetWords = ['sorted', 'filed', 'archive', 'library', 'tidy'];
const skipPrefixes = ['draft-', 'tmp-', 'wip-'];
const manifest = 'MANIFEST.txt';

const stageText = {
  byExt: 'Move every file from the top level of `inbox/` into a folder named after its extension (the extension in the folder-name case I want).',
  noExt: 'Files without an extension go into a folder `misc` (same case rule).',
  manifest: `Then write \`${manifest}\` in the destination folder: one line \`<folder>/<file>\` per moved file, sorted.`,
  total: `End \`${manifest}\` with a line \`total <count>\`.`,
};

interface Facts { target: string; upper: boolean; skip: string }

const factText = {
  target: (f: Facts) => `Move them under \`${f.target}/\`.`,
  case: (f: Facts) => `Folder names in \`${f.upper ? 'UPPERCASE' : 'lowercase'}\`.`,
  skip: (f: Facts) => `Leave files starting with \`${f.skip}\` in the inbox.`,
};
const vagueText = {
  target: 'Put them in the destination folder I use.',
  case: 'Name the folders the way I like.',
  skip: 'Some files I am still working on should stay where they are.',
};

function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(fileOrganize, input);
  const seed = drawContentSeed(rng);
  const r = createRng(seed);
  const h = knobs.horizon;
  const facts: Facts = { target: `${r.pick(targetWords)}-${r.int(10, 99)}`, upper: r.chance(0.7), skip: r.pick(skipPrefixes) };
  const used = new Set<string>();
  const fileName = (ext: string | null): string => {
    for (;;) {
      const n = `${r.pick(stems)}-${r.int(1, 99)}${ext ? `.${ext}` : ''}`;
      if (!used.has(n)) { used.add(n); return n; }
    }
  };
  // Both cases of an extension appear so that forgetting the case rule shows; skipped and nested files are traps.
  const top = [fileName('jpg'), fileName('JPG'), ...Array.from({ length: r.int(4, 8) }, () => fileName(r.pick(extensions)))];
  if (h >= 2) top.push(fileName(null), fileName(null));
  const skipped = [`${facts.skip}${fileName('txt')}`, `${facts.skip}${fileName('pdf')}`];
  const nested = Array.from({ length: knobs.distractors }, () => `keep/${fileName(r.pick(extensions))}`);
  const files: SandboxFile[] = [...top, ...skipped, ...nested].map((n) => ({ path: `inbox/${n}`, content: `${n} ${r.int(1000, 9999)}\n` }));
  if (nested.length > 0) files.push({ path: 'inbox/keep/README', content: 'Files in here are pinned: leave this folder alone.\n' });

  const folderOf = (n: string): string => {
    const dot = n.lastIndexOf('.');
    const base = dot < 0 ? 'misc' : n.slice(dot + 1);
    return facts.upper ? base.toUpperCase() : base.toLowerCase();
  };
  const moved = top.map((n) => `${folderOf(n)}/${n}`).sort(byteCompare);
  const left = [...skipped, ...nested, ...(nested.length > 0 ? ['keep/README'] : [])].sort(byteCompare);
  const factDefs: HiddenFact[] = [
    { id: 'target', text: factText.target(facts), keywords: ['destination', 'where', 'folder', 'under', 'target', 'move them'] },
    { id: 'case', text: factText.case(facts), keywords: ['case', 'uppercase', 'lowercase', 'capital', 'naming', 'name the'] },
    { id: 'skip', text: factText.skip(facts), keywords: ['skip', 'leave', 'exclude', 'stay', 'ignore', 'exception'] },
  ];
  const hidden = chooseHidden(factDefs, knobs.hiddenState, r);
  const stages = [stageText.byExt, ...(h >= 2 ? [stageText.noExt] : []), ...(h >= 3 ? [stageText.manifest] : []), ...(h >= 4 ? [stageText.total] : [])];
  const instruction = [
    'Tidy up my `inbox/` folder.',
    ...factDefs.map((f) => (hidden.has(f.id) ? vagueText[f.id as keyof typeof vagueText] : f.text)),
    ...stages,
    knobs.feedback > 0 && h >= 3 ? `Run \`sh ${checkScriptPath} <manifest file>\` to check the manifest format before you finish.` : '',
  ].filter(Boolean).join('\n');
  if (knobs.feedback > 0 && h >= 3) {
    files.push({ path: checkScriptPath, content: buildFormatCheck({ data: '^[A-Za-z]+/[A-Za-z0-9._-]+$', sortArgs: '-k1', ...(h >= 4 ? { footer: '^total [0-9]+$' } : {}) }, knobs.feedback >= 2), mode: '755' });
  }

  const list = (dir: string, exclude?: string): string => `cd ${shq(dir)} && find . -type f${exclude ? ` ! -path ${shq(`./${exclude}`)}` : ''} | sed 's|^\\./||' | LC_ALL=C sort`;
  const lines = (xs: string[]): string => xs.map((x) => `${x}\n`).join('');
  const checks = [
    { key: 'moved', label: `files in ${facts.target}/`, actual: list(facts.target, manifest), expected: lines(moved), norm: textNorm(1) },
    ...(knobs.strictness >= 1 ? [{ key: 'inbox', label: 'files left in inbox/', actual: list('inbox'), expected: lines(left), norm: textNorm(1) }] : []),
    ...(h >= 3 ? [{ key: 'manifest', label: `${facts.target}/${manifest}`, requireFile: `${facts.target}/${manifest}`, actual: `cat ${shq(`${facts.target}/${manifest}`)}`, expected: lines([...moved, ...(h >= 4 ? [`total ${moved.length}`] : [])]), norm: textNorm(knobs.strictness) }] : []),
  ];
  const verifier = buildVerifier(name, knobs.strictness, checks);
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `File organize: ${top.length} files into ${facts.target}/, ${h} step(s)`,
    family: name,
    instruction,
    sandbox: { files, setup: ['chmod -R u+rw inbox'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(facts, h) },
    hint: `Only top-level files of inbox/ move${nested.length > 0 ? ' (inbox/keep/ stays as it is)' : ''}. ${factDefs.map((f) => f.text).join(' ')}`,
    user: {
      request: 'My inbox folder is a mess, can you sort it out?',
      facts: factDefs,
      goal: `The top-level inbox files sit in ${facts.target}/<${facts.upper ? 'EXT' : 'ext'}>/, ${facts.skip}* files and inbox/keep stay put.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: input.knobs ? difficultyOf(fileOrganize, knobs) : (input.level ?? 1),
    knobs,
    skills: fileOrganize.skills,
    provenance: { source: `builtin:${name}`, author: 'coevolve built-in generator' },
  });
}

const byteCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The move loop shared by the oracle and the agent, so both run the same real procedure. */
function moveLoop(opts: { target: string; upper: boolean | undefined; skip: string | undefined; recursive: boolean }): string {
  const caseCmd = opts.upper === undefined ? '' : ` | tr ${opts.upper ? "'a-z' 'A-Z'" : "'A-Z' 'a-z'"}`;
  const misc = opts.upper ? 'MISC' : 'misc';
  return [
    `find inbox${opts.recursive ? '' : ' -maxdepth 1'} -type f | while IFS= read -r f; do`,
    'b=$(basename "$f");',
    opts.skip ? `case "$b" in ${opts.skip}*) continue;; esac;` : '',
    `case "$b" in *.*) d=$(printf '%s' "\${b##*.}"${caseCmd});; *) d=${misc};; esac;`,
    `mkdir -p ${shq(opts.target)}/"$d" && mv "$f" ${shq(opts.target)}/"$d"/;`,
    'done',
  ].filter(Boolean).join(' ');
}

function manifestCommand(target: string, total: boolean, s?: Slip): string {
  const order = s === 'order' ? 'cat' : 'LC_ALL=C sort';
  const tail = s === 'space' ? ` | sed 's/$/ /'` : '';
  const list = `(cd ${shq(target)} && find . -type f ! -name ${manifest} | sed 's|^\\./||' | ${order}${tail})`;
  return total
    ? `${list} > .work/manifest && { cat .work/manifest; printf 'total %s\\n' "$(wc -l < .work/manifest | tr -d ' ')"; } > ${shq(`${target}/${manifest}`)}`
    : `${list} > .work/manifest && cat .work/manifest > ${shq(`${target}/${manifest}`)}`;
}

function oracleScript(f: Facts, h: number): string {
  return ['#!/bin/sh', '# Reference solution: knows the destination, the case rule and which files to leave.', 'set -e', 'mkdir -p .work',
    moveLoop({ target: f.target, upper: f.upper, skip: f.skip, recursive: false }),
    ...(h >= 3 ? [manifestCommand(f.target, h >= 4)] : []), 'rm -rf .work', ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = [
  { id: 'target', question: 'Which destination folder should I move them under?', guess: 'sorted', parse: (t) => /under `([A-Za-z0-9._-]+)\/`/.exec(t)?.[1] },
  { id: 'case', question: 'Should the folder names be uppercase or lowercase (what case)?', guess: 'lowercase', parse: (t) => /`(UPPERCASE|lowercase)`/.exec(t)?.[1] },
  { id: 'skip', question: 'Are there files I should leave alone or skip?', guess: '', parse: (t) => /starting with `([A-Za-z]+-)`/.exec(t)?.[1] },
];

const playbook: FamilyPlaybook = {
  bestIdiom: 'shell',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    k.stages = 1 + (text.includes(stageText.noExt) ? 1 : 0) + (text.includes(stageText.manifest) ? 1 : 0) + (text.includes(stageText.total) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
    k.wanted = slots.map((s) => s.id);
  },
  explore(thorough: boolean, _k: Knowledge, step: number): string | undefined {
    return (thorough ? ['ls -la inbox', 'find inbox -mindepth 2 | head -n 20'] : ['ls inbox'])[step];
  },
  observe(command: string, output: string, k: Knowledge): void {
    if (command.startsWith('find inbox -mindepth 2')) k.found.set('nested', output.trim() ? 'yes' : 'no');
  },
  outputPath: (k) => `${factOr(k, slots, 'target')}/${manifest}`,
  solve(k, _idiom, slip): PlannedCommand[] {
    const target = factOr(k, slots, 'target');
    const caseValue = factOr(k, slots, 'case');
    const moveSlip = slip('move');
    const cmds: PlannedCommand[] = [
      { stage: 'prepare', command: 'mkdir -p .work' },
      {
        stage: 'move',
        command: moveLoop({
          target,
          upper: moveSlip === 'content' ? undefined : caseValue === 'UPPERCASE',
          skip: k.facts.get('skip'),
          // Without having looked below the top level the agent sweeps the whole tree.
          recursive: k.found.get('nested') === undefined,
        }),
      },
    ];
    if (k.stages >= 3) cmds.push({ stage: 'manifest', command: manifestCommand(target, k.stages >= 4, slip('manifest')) });
    return cmds;
  },
};

export const fileOrganize: TaskFamily = {
  name,
  title: 'File organize',
  maxLevel: standardMaxLevel,
  knobs: standardKnobs,
  skills: ['file-management', 'shell-loops', 'clarification'],
  generate,
  playbook,
};
