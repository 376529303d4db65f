import type { Rng } from '../../core/ports/rng.js';
import type { EnvironmentSpec, HiddenFact, SandboxFile } from '../../core/spec/environment.js';
import { environmentSpecSchema } from '../../core/spec/environment.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { FactSlot, FamilyPlaybook, Knowledge, PlannedCommand, Slip, StageDef } from '../agent/playbook.js';
import { factOr } from '../agent/playbook.js';
import { shq } from '../shellQuote.js';
import type { GenerateInput, TaskFamily } from './family.js';
import { builtinSource, chooseHidden, contentStreams, difficultyOf, drawContentSeed, environmentId, resolveKnobs, standardKnobs, standardMaxLevel } from './family.js';
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import { buildVerifier, builtinRewardFile, textNorm } from './verifierScript.js';

const name = 'file-organize';
const stems = ['holiday', 'invoice', 'scan', 'notes', 'budget', 'photo', 'slides', 'contract', 'recipe', 'letter', 'plan', 'minutes'];
const extensions = ['jpg', 'JPG', 'pdf', 'PDF', 'txt', 'csv', 'png', 'md'];
const targetWords = ['sorted', 'filed', 'archive', 'library', 'tidy'];
const skipPrefixes = ['draft-', 'tmp-', 'wip-'];
const pinnedNames = ['keep', 'shared', 'pinned', 'old', 'private', 'taxes'];
const pinnedReadme = 'Pinned folder: leave it and everything in it as it is.\n';
const manifest = 'MANIFEST.txt';

const intro = 'Tidy up my `inbox/` folder. A subfolder whose `README` says it is pinned stays exactly as it is.';
const stageText = {
  byExt: 'Move every file from the top level of `inbox/` into a folder named after its extension (the extension in the folder-name case I want).',
  noExt: 'Files without an extension go into a folder `misc` (same case rule).',
  manifest: `Then write \`${manifest}\` in the destination folder: one line \`<folder>/<file>\` per moved file, sorted.`,
  folders: `After those lines, add a line \`folders <count>\` with the number of folders you filled.`,
  total: `End \`${manifest}\` with a line \`total <count>\` (the number of moved files).`,
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

/** File names drawn from per-aspect streams, unique across the whole task. */
function nameDrawer(): (r: Rng, ext: string | null, prefix?: string) => string {
  const used = new Set<string>();
  return (r, ext, prefix = '') => {
    for (;;) {
      const n = `${prefix}${r.pick(stems)}-${r.int(1, 99)}${ext ? `.${ext}` : ''}`;
      if (!used.has(n)) { used.add(n); return n; }
    }
  };
}

/**
 * Knobs: horizon = steps (move by extension + manifest; + files without extension; + total; + folder count),
 * hiddenState = facts left to the user, distractors = pinned subfolders (each one the agent does not look into gets
 * swept), feedback = check.sh on the manifest, strictness = 0 moved files, 1 + what is left in the inbox and the
 * manifest's order, 2 the manifest byte-exact. Every aspect draws from its own stream of the content seed; names are
 * drawn for every setting so that one knob step never renames another file.
 */
function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(fileOrganize, input);
  const seed = input.contentSeed ?? drawContentSeed(rng);
  const c = contentStreams(seed);
  const h = knobs.horizon;
  const { facts, moving, skipped, pinned, pinnedPaths, files } = drawContent(c, h, knobs.distractors);
  const moved = moving.map((n) => `${folderOf(n, facts.upper)}/${n}`).sort(byteCompare);
  const left = [...skipped, ...pinnedPaths].sort(byteCompare);
  const factDefs = factDefsOf(facts);
  const hidden = chooseHidden(factDefs, knobs.hiddenState, c('hidden'));
  const instruction = instructionOf(factDefs, hidden, h, knobs.feedback);
  if (knobs.feedback > 0) files.push(checkScriptFile(h, knobs.feedback));
  const verifier = verifierOf(facts, moved, left, h, knobs.strictness);
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `File organize: ${moving.length} files into ${facts.target}/, ${h} step(s)`,
    family: name,
    instruction,
    sandbox: { files, setup: ['chmod -R u+rw inbox'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(facts, h) },
    hint: `Only top-level files of inbox/ move${pinned.length > 0 ? ` (${pinned.map((p) => `inbox/${p.dir}/`).join(', ')} stay as they are)` : ''}. ${factDefs.map((f) => f.text).join(' ')}`,
    user: {
      request: 'My inbox folder is a mess, can you sort it out?',
      facts: factDefs,
      goal: `The top-level inbox files sit in ${facts.target}/<${facts.upper ? 'EXT' : 'ext'}>/, ${facts.skip}* files and pinned folders stay put.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: difficultyOf(fileOrganize, knobs),
    knobs,
    skills: fileOrganize.skills,
    provenance: { source: builtinSource(name, seed), author: 'coevolve built-in generator' },
  });
}

/** A task's drawn content: the user's facts, the inbox files that move or stay, the pinned folders and the sandbox files. */
interface Content {
  facts: Facts;
  /** Top-level inbox files that move (those without an extension only from horizon 2). */
  moving: string[];
  /** Files starting with the skip prefix: they stay in the inbox. */
  skipped: string[];
  pinned: { dir: string; files: string[] }[];
  /** Every file of the pinned folders, README included, relative to the inbox. */
  pinnedPaths: string[];
  files: SandboxFile[];
}

/**
 * Draws the content from the seed's streams. The names are drawn in this order through one drawer (names are unique
 * across the task, so the order decides which draw gets which name): top-level files, skipped, without extension,
 * then the pinned folders'. Names without an extension and every pinned folder are drawn whatever the knobs.
 */
function drawContent(c: (aspect: string) => Rng, h: number, distractors: number): Content {
  const fr = c('facts');
  const facts: Facts = { target: `${fr.pick(targetWords)}-${fr.int(10, 99)}`, upper: fr.chance(0.7), skip: fr.pick(skipPrefixes) };
  const draw = nameDrawer();
  // Both cases of an extension appear so that forgetting the case rule shows.
  const tr = c('files');
  const top = [draw(tr, 'jpg'), draw(tr, 'JPG'), ...Array.from({ length: tr.int(4, 8) }, () => draw(tr, tr.pick(extensions)))];
  const sr = c('skipped');
  const skipped = [draw(sr, 'txt', facts.skip), draw(sr, 'pdf', facts.skip)];
  const nr = c('no-extension');
  const noExt = [draw(nr, null), draw(nr, null)];
  const pinned = c('pinned').shuffle(pinnedNames).map((dir, i) => {
    const pr = c(`pinned-${i}`);
    return { dir, files: Array.from({ length: pr.int(1, 2) }, () => draw(pr, pr.pick(extensions))) };
  }).slice(0, distractors);
  const moving = [...top, ...(h >= 2 ? noExt : [])];
  const pinnedPaths = pinned.flatMap((p) => [...p.files.map((f) => `${p.dir}/${f}`), `${p.dir}/README`]);
  const files: SandboxFile[] = [
    ...[...moving, ...skipped].map((n) => ({ path: `inbox/${n}`, content: `${n} ${c(`body/${n}`).int(1000, 9999)}\n` })),
    ...pinnedPaths.map((p) => ({ path: `inbox/${p}`, content: p.endsWith('/README') ? pinnedReadme : `${p} pinned\n` })),
  ];
  return { facts, moving, skipped, pinned, pinnedPaths, files };
}

/** The folder a file moves to: its extension, or misc without one, in the user's case. */
function folderOf(n: string, upper: boolean): string {
  const dot = n.lastIndexOf('.');
  const base = dot < 0 ? 'misc' : n.slice(dot + 1);
  return upper ? base.toUpperCase() : base.toLowerCase();
}

function factDefsOf(facts: Facts): HiddenFact[] {
  return [
    { id: 'target', text: factText.target(facts), keywords: ['destination', 'where', 'folder', 'under', 'target', 'move them'] },
    { id: 'case', text: factText.case(facts), keywords: ['case', 'uppercase', 'lowercase', 'capital', 'naming', 'name the'] },
    { id: 'skip', text: factText.skip(facts), keywords: ['skip', 'leave', 'exclude', 'stay', 'ignore', 'exception'] },
  ];
}

/** The request: the intro, each fact (or its vague form when hidden), the horizon's stages and the check's mention. */
function instructionOf(factDefs: HiddenFact[], hidden: Set<string>, h: number, feedback: number): string {
  const stages = [stageText.byExt, ...(h >= 2 ? [stageText.noExt] : []), stageText.manifest, ...(h >= 4 ? [stageText.folders] : []), ...(h >= 3 ? [stageText.total] : [])];
  return [
    intro,
    ...factDefs.map((f) => (hidden.has(f.id) ? vagueText[f.id as keyof typeof vagueText] : f.text)),
    ...stages,
    feedback > 0 ? `Run \`sh ${checkScriptPath} <manifest file>\` to check the manifest format before you finish.` : '',
  ].filter(Boolean).join('\n');
}

/** check.sh on the manifest: its line format, sort order and the horizon's footer lines. */
function checkScriptFile(h: number, feedback: number): SandboxFile {
  const footers = [...(h >= 4 ? ['^folders [0-9]+$'] : []), ...(h >= 3 ? ['^total [0-9]+$'] : [])];
  return { path: checkScriptPath, content: buildFormatCheck({ data: '^[A-Za-z]+/[A-Za-z0-9._-]+$', sortArgs: '-k1', movedFrom: 'inbox', ...(footers.length ? { footers } : {}) }, feedback >= 2), mode: '755' };
}

/** The verifier: the files under the target, what is left in the inbox (strictness 1 and up), and the manifest. */
function verifierOf(facts: Facts, moved: string[], left: string[], h: number, strictness: number): ReturnType<typeof buildVerifier> {
  const list = (dir: string, exclude?: string): string => `cd ${shq(dir)} && find . -type f${exclude ? ` ! -path ${shq(`./${exclude}`)}` : ''} | sed 's|^\\./||' | LC_ALL=C sort`;
  const lines = (xs: string[]): string => xs.map((x) => `${x}\n`).join('');
  const folders = new Set(moved.map((m) => m.split('/')[0])).size;
  const manifestLines = [...moved, ...(h >= 4 ? [`folders ${folders}`] : []), ...(h >= 3 ? [`total ${moved.length}`] : [])];
  return buildVerifier(name, strictness, [
    { key: 'moved', label: `files in ${facts.target}/`, actual: { command: list(facts.target, manifest) }, expected: lines(moved), norm: textNorm(1) },
    ...(strictness >= 1 ? [{ key: 'inbox', label: 'files left in inbox/', actual: { command: list('inbox') }, expected: lines(left), norm: textNorm(1) }] : []),
    { key: 'manifest', label: `${facts.target}/${manifest}`, requireFile: `${facts.target}/${manifest}`, actual: { file: `${facts.target}/${manifest}` }, expected: lines(manifestLines), norm: textNorm(strictness) },
  ]);
}

const byteCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface MoveOptions {
  target: string;
  /** undefined: keep the extension's case (the case rule ignored). */
  upper: boolean | undefined;
  skip: string | undefined;
  /** Subfolders whose files are swept too (the agent did not see they are pinned). */
  sweep: string[];
  /** Files without an extension: moved to misc, left where they are, or copied. */
  noExt: 'move' | 'leave' | 'copy';
  copy: boolean;
}

/**
 * The move loop shared by the oracle and the agent, so both run the same real procedure. One awk writes each path
 * followed by its name in the target case (toupper/tolower act on ASCII letters only, as `tr 'a-z' 'A-Z'` did), so
 * the loop itself is shell builtins, a `mkdir` per new folder and a `mv` (or `cp`) per file: no basename, printf,
 * tr or mkdir per file.
 */
function moveLoop(o: MoveOptions): string {
  const caseFn = o.upper === undefined ? '' : o.upper ? 'toupper' : 'tolower';
  const misc = o.upper ? 'MISC' : 'misc';
  const act = (verb: string) => `{ [ -d ${shq(o.target)}/"$d" ] || mkdir -p ${shq(o.target)}/"$d"; } && ${verb} "$f" ${shq(o.target)}/"$d"/`;
  const noExt = o.noExt === 'leave' ? 'continue' : `d=${misc}; ${act(o.noExt === 'copy' ? 'cp' : o.copy ? 'cp' : 'mv')}; continue`;
  return [
    `{ find inbox -maxdepth 1 -type f; ${o.sweep.map((d) => `find ${shq(d)} -type f; `).join('')}}`,
    `| awk '{ print; n = $0; sub(/.*\\//, "", n); print ${caseFn ? `${caseFn}(n)` : 'n'} }' | while IFS= read -r f && IFS= read -r n; do`,
    'b=${f##*/};',
    o.skip ? `case "$b" in ${o.skip}*) continue;; esac;` : '',
    `case "$b" in *.*) d=\${n##*.};; *) ${noExt};; esac;`,
    `${act(o.copy ? 'cp' : 'mv')};`,
    'done',
  ].filter(Boolean).join(' ');
}

interface ManifestSlips { manifest?: Slip; total?: Slip; folders?: Slip }

function manifestCommand(target: string, h: number, s: ManifestSlips): string {
  const t = shq(target);
  const body = s.manifest === 'content' ? `find . -type f ! -name ${manifest} | sed 's|^.*/||'` : `find . -type f ! -name ${manifest} | sed 's|^\\./||'`;
  const order = s.manifest === 'order' ? 'LC_ALL=C sort -r' : 'LC_ALL=C sort';
  const sp = (x: Slip | undefined) => (x === 'space' ? ' ' : '');
  const lines = [`cat .work/manifest`];
  const folders = `printf 'folders %s${sp(s.folders)}\\n' "$(($(cut -d/ -f1 .work/manifest | sort -u | wc -l)${s.folders === 'content' ? ' + 1' : ''}))"`;
  const total = `printf 'total %s${sp(s.total)}\\n' "$(($(wc -l < .work/manifest)${s.total === 'content' ? ' + 1' : ''}))"`;
  if (h >= 4) s.folders === 'order' ? lines.unshift(folders) : lines.push(folders);
  if (h >= 3) s.total === 'order' ? lines.unshift(total) : lines.push(total);
  return `(cd ${t} && ${body} | ${order}${s.manifest === 'space' ? ` | sed 's/$/ /'` : ''}) > .work/manifest && { ${lines.join('; ')}; } > ${shq(`${target}/${manifest}`)}`;
}

function oracleScript(f: Facts, h: number): string {
  return ['#!/bin/sh', '# Reference solution: knows the destination, the case rule and which files to leave.', 'set -e', 'mkdir -p .work',
    moveLoop({ target: f.target, upper: f.upper, skip: f.skip, sweep: [], noExt: 'move', copy: false }),
    `mkdir -p ${shq(f.target)}`, manifestCommand(f.target, h, {}), 'rm -rf .work', ''].join('\n');
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
    k.stages = 1 + (text.includes(stageText.noExt) ? 1 : 0) + (text.includes(stageText.total) ? 1 : 0) + (text.includes(stageText.folders) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
    k.wanted = slots.map((s) => s.id);
  },
  survey: 'ls -la inbox',
  // Subfolders of the inbox: `ls -la` lines of directories, without . and ..
  candidates: (output) => output.split('\n').filter((l) => l.startsWith('d')).map((l) => l.trim().split(/\s+/).pop() ?? '').filter((n) => n && n !== '.' && n !== '..').map((n) => `inbox/${n}`).sort(),
  inspect: (path) => `cat ${shq(`${path}/README`)}`,
  observeInspect: (_path, output) => (/pinned/i.test(output) ? 'decoy' : 'input'),
  stages(k): StageDef[] {
    const all: Slip[] = ['content', 'order', 'space'];
    return [
      { name: 'move', slips: ['content', 'order'] },
      ...(k.stages >= 2 ? [{ name: 'misc', slips: ['content'] as Slip[] }] : []),
      { name: 'manifest', slips: all },
      ...(k.stages >= 3 ? [{ name: 'total', slips: all }] : []),
      ...(k.stages >= 4 ? [{ name: 'folders', slips: all }] : []),
    ];
  },
  outputPath: (k) => `${factOr(k, slots, 'target')}/${manifest}`,
  solve(k, _idiom, slip): PlannedCommand[] {
    const target = factOr(k, slots, 'target');
    const move = slip('move'), misc = slip('misc');
    return [
      { stage: 'prepare', command: `mkdir -p .work ${shq(target)}` },
      {
        stage: 'move',
        command: moveLoop({
          target,
          upper: move === 'content' ? undefined : factOr(k, slots, 'case') === 'UPPERCASE',
          skip: k.facts.get('skip'),
          sweep: k.inputs,
          noExt: misc === 'content' ? 'leave' : misc === 'order' ? 'copy' : 'move',
          copy: move === 'order',
        }),
      },
      { stage: 'manifest', command: manifestCommand(target, k.stages, { manifest: slip('manifest'), total: slip('total'), folders: slip('folders') }) },
    ];
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
