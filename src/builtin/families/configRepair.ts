import { createHash } from 'node:crypto';
import type { Rng } from '../../core/ports/rng.js';
import type { EnvironmentSpec, HiddenFact, SandboxFile } from '../../core/spec/environment.js';
import { environmentSpecSchema } from '../../core/spec/environment.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { FactSlot, FamilyPlaybook, Knowledge, PlannedCommand, Slip, StageDef } from '../agent/playbook.js';
import { listedFiles } from '../agent/playbook.js';
import { shq } from '../shellQuote.js';
import type { GenerateInput, TaskFamily } from './family.js';
import { builtinSource, chooseHidden, contentStreams, difficultyOf, drawContentSeed, environmentId, resolveKnobs, standardKnobs, standardMaxLevel } from './family.js';
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import type { OutputCheck, TextNorm } from './verifierScript.js';
import { buildVerifier, builtinRewardFile, byteOrder, space, textLines, textNorm } from './verifierScript.js';

const name = 'config-repair';
const services = ['orders', 'billing', 'catalog', 'ledger', 'notifier', 'gateway'];
const words = ['alpha', 'bravo', 'delta', 'orion', 'vega', 'nova', 'atlas'];
const oldCopyMarker = '; OLD COPY - not loaded by the service';

interface Setting { key: string; section: string; current: string; keywords: string[]; pick(r: Rng): string }

// The settings a config holds; a task asks to fix three of them. Values are drawn to differ from the current ones.
const settings: Setting[] = [
  { key: 'port', section: 'server', current: '8080', keywords: ['port', 'listen'], pick: (r) => String(r.int(9000, 9999)) },
  { key: 'workers', section: 'server', current: '2', keywords: ['workers', 'threads', 'processes'], pick: (r) => String(r.int(3, 16)) },
  { key: 'db_name', section: 'database', current: 'app', keywords: ['database', 'db'], pick: (r) => `${r.pick(words)}_db` },
  { key: 'timeout', section: 'database', current: '30', keywords: ['timeout', 'seconds'], pick: (r) => String(r.int(45, 300)) },
  { key: 'log_level', section: 'logging', current: 'info', keywords: ['log level', 'logging', 'verbosity'], pick: (r) => r.pick(['warn', 'error', 'debug']) },
  { key: 'cache_dir', section: 'logging', current: '/var/cache/app', keywords: ['cache', 'directory'], pick: (r) => `/srv/cache/${r.pick(words)}` },
];
const sections = ['server', 'database', 'logging'];
const targetCount = 3;

const introText = (service: string) => `The ${service} service reads one config file in \`app/conf/\`; old copies sit next to it, each starting with a \`; OLD COPY\` line: leave those exactly as they are.`;
const fixSentence = 'Fix these settings in the service\'s config file, in place (keep every other line as it is):';
const factText = (key: string, value: string) => `Set \`${key}\` to \`${value}\`.`;
const stageText = {
  backup: 'Before editing, save a copy of the original file next to it, with `.orig` appended to its name.',
  changelog: 'Then end the config file with a line `# changed: <key>,<key>,<key>` listing the keys you fixed, in the order above.',
  reload: 'Finally write the path of the config file (as `app/conf/<name>.ini`) to `app/RELOAD`.',
};

/**
 * Knobs: horizon = steps (fix in place; + a backup first; + a changelog line; + a reload marker), hiddenState =
 * values left to the user, distractors = old copies next to the live config (each one the agent does not look at
 * gets edited too), feedback = check.sh verbose/terse/none, strictness = 0 effective values, 1 the file modulo
 * spacing, 2 bytes. Every aspect draws from its own stream of the content seed.
 */
function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(configRepair, input);
  const seed = input.contentSeed ?? drawContentSeed(rng);
  const c = contentStreams(seed);
  const service = c('service').pick(services);
  const targets = c('targets').shuffle(settings).slice(0, targetCount);
  const wanted = new Map(targets.map((s) => [s.key, s.pick(c(`value-${s.key}`))]));
  // Broken lines: a target is either set to the old value or commented out.
  const commented = new Set(targets.filter((s) => c(`commented-${s.key}`).chance(0.5)).map((s) => s.key));
  const h = knobs.horizon;
  const changelog = `# changed: ${targets.map((s) => s.key).join(',')}`;
  const config: ConfigContent = { service, wanted, commented, horizon: h, changelog };
  const original = renderConfig(config, false);
  const paths = c('names').shuffle(['app/conf/service.ini', 'app/conf/main.ini', 'app/conf/prod.ini', 'app/conf/server.ini', 'app/conf/live.ini', 'app/conf/default.ini', 'app/conf/site.ini']);
  const live = paths[0] as string;
  const decoys = oldCopies(c, paths.slice(1, knobs.distractors + 1), original);
  const files: SandboxFile[] = [{ path: live, content: original }, ...decoys];

  const factDefs: HiddenFact[] = targets.map((s) => ({ id: s.key, text: factText(s.key, wanted.get(s.key) as string), keywords: [s.key, ...s.keywords] }));
  const hidden = chooseHidden(factDefs, knobs.hiddenState, c('hidden'));
  const instruction = instructionOf(service, targets, factDefs, hidden, h, knobs.feedback);
  if (knobs.feedback > 0) files.push(checkScriptFile(original, h, knobs.feedback));

  const verifier = buildVerifier(name, knobs.strictness, checks({ live, decoys, strictness: knobs.strictness, horizon: h, fixed: renderConfig(config, true), original, changelog }));
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `Config repair: ${targets.map((s) => s.key).join(', ')} of ${service}, ${h} step(s)`,
    family: name,
    instruction,
    sandbox: { files, setup: ['chmod 644 app/conf/*.ini'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(live, wanted, h, changelog) },
    hint: `The live config is ${live}; every other .ini file in app/conf/ is an old copy. ${factDefs.map((f) => f.text).join(' ')} Commented-out lines (# key = ...) must be replaced in place, not duplicated.`,
    user: {
      request: `The ${service} service is misconfigured, can you fix its config?`,
      facts: factDefs,
      goal: `${live} has ${targets.map((s) => `${s.key} = ${wanted.get(s.key)}`).join(', ')} and is otherwise unchanged.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: difficultyOf(configRepair, knobs),
    knobs,
    skills: configRepair.skills,
    provenance: { source: builtinSource(name, seed), author: 'coevolve built-in generator' },
  });
}

/** What a task's config file is made of: the service, the wanted values, which target lines are commented out. */
interface ConfigContent {
  service: string;
  wanted: Map<string, string>;
  commented: Set<string>;
  horizon: number;
  changelog: string;
}

/**
 * The config file as the task hands it over (fix = false: old values, some targets commented out) or as it should be
 * left (fix = true: the wanted values, and from horizon 3 the changelog line at the end).
 */
function renderConfig(o: ConfigContent, fix: boolean): string {
  const lines = [`# ${o.service} service configuration`];
  for (const section of sections) {
    lines.push('', `[${section}]`);
    for (const s of settings.filter((x) => x.section === section)) {
      const value = fix ? (o.wanted.get(s.key) ?? s.current) : s.current;
      lines.push(!fix && o.commented.has(s.key) ? `# ${s.key} = ${value}` : `${s.key} = ${value}`);
    }
  }
  if (fix && o.horizon >= 3) lines.push(o.changelog);
  return lines.map((l) => `${l}\n`).join('');
}

/** The old copies beside the live config: the marker line, then the original with some values changed (stream decoy-i). */
function oldCopies(c: (aspect: string) => Rng, paths: string[], original: string): SandboxFile[] {
  return paths.map((p, i) => {
    const r = c(`decoy-${i}`);
    return { path: p, content: `${oldCopyMarker}\n${original.replace(/= (\S+)/g, (m, v: string) => (r.chance(0.3) ? `= ${v}0` : m))}` };
  });
}

/** The request: the service, the keys to fix, each value (or a promise to tell it when hidden), the horizon's steps. */
function instructionOf(service: string, targets: Setting[], factDefs: HiddenFact[], hidden: Set<string>, h: number, feedback: number): string {
  return [
    introText(service),
    `${fixSentence} ${targets.map((s) => s.key).join(', ')}.`,
    ...factDefs.map((f) => (hidden.has(f.id) ? `I'll tell you what \`${f.id}\` should be.` : f.text)),
    'Each setting is one line `key = value` inside its section.',
    ...(h >= 2 ? [stageText.backup] : []), ...(h >= 3 ? [stageText.changelog] : []), ...(h >= 4 ? [stageText.reload] : []),
    feedback > 0 ? `Run \`sh ${checkScriptPath} <config file>\` to check the syntax before you finish.` : '',
  ].filter(Boolean).join('\n');
}

/** check.sh on the config file. */
function checkScriptFile(original: string, h: number, feedback: number): SandboxFile {
  // The check also covers the later steps: the backup is the original, the changelog line ends the file, RELOAD names it.
  const rules = {
    data: '^(|#.*|\\[[a-z]+\\]|[a-z_]+ = [^ ]+)$',
    sections: Object.fromEntries(settings.map((x) => [x.key, x.section])),
    ...(h >= 2 ? { backupMd5: createHash('md5').update(original).digest('hex') } : {}),
    ...(h >= 3 ? { footers: ['^# changed: [a-z_,]+$'] } : {}),
    ...(h >= 4 ? { namedIn: 'app/RELOAD' } : {}),
  };
  return { path: checkScriptPath, content: buildFormatCheck(rules, feedback >= 2), mode: '755' };
}

const ws = `${space}*`;
/** Strictness 0: the effective value of every key (the last line setting it wins), sorted. */
const keyNorm: TextNorm = {
  first: `sed -n -E 's/^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*([^[:space:]]+)[[:space:]]*$/\\1=\\2/p'`,
  rest: `awk -F= '{ v[$1] = $2 } END { for (k in v) print k "=" v[k] }' | LC_ALL=C sort`,
  apply: (text) => {
    const setting = new RegExp(`^${ws}([a-z_]+)${ws}=${ws}([^ \\t\\n\\v\\f\\r]+)${ws}$`);
    const v = new Map<string, string>();
    for (const line of textLines(text)) {
      const m = setting.exec(line);
      // awk -F= keeps the value up to its first '='.
      if (m) v.set(m[1]!, m[2]!.split('=')[0]!);
    }
    return [...v].map(([k, x]) => `${k}=${x}`).sort(byteOrder).map((l) => `${l}\n`).join('');
  },
  cmpFirst: false,
};
/** Strictness 1: the file modulo spacing (around `=`, at line ends) and blank lines. */
const fileNorm: TextNorm = {
  first: `sed -E -e 's/\\r$//' -e 's/[[:space:]]+$//' -e 's/^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*/\\1 = /'`,
  rest: `grep -v '^$'`,
  apply: (text) => textLines(text)
    .map((l) => l.replace(/\r$/, '').replace(new RegExp(`${space}+$`), '').replace(new RegExp(`^${ws}([a-z_]+)${ws}=${ws}`), '$1 = '))
    .filter((l) => l !== '').map((l) => `${l}\n`).join(''),
  // The rendered config has blank lines between its sections, which the normalised text drops.
  cmpFirst: false,
};
/** The config's own comparisons by strictness (0 and 1), for the test that runs them through busybox. */
export const configNorms: readonly TextNorm[] = [keyNorm, fileNorm];

/** What the verifier compares: the live config (by strictness), each old copy (bytes), and the later steps' files. */
function checks(o: { live: string; decoys: SandboxFile[]; strictness: number; horizon: number; fixed: string; original: string; changelog: string }): OutputCheck[] {
  // Strictness 0 compares the effective value of every key; 1 the whole file modulo spacing; 2 bytes.
  const norm = o.strictness === 0 ? keyNorm : o.strictness === 1 ? fileNorm : textNorm(2);
  const text = textNorm(o.strictness);
  return [
    { key: 'config', label: o.live, requireFile: o.live, actual: { file: o.live }, expected: o.fixed, norm },
    ...o.decoys.map((d, i) => ({ key: `old${i + 1}`, label: `${d.path} (old copy, unchanged)`, requireFile: d.path, actual: { file: d.path }, expected: d.content, norm: textNorm(2) })),
    ...(o.horizon >= 2 ? [{ key: 'backup', label: `${o.live}.orig`, requireFile: `${o.live}.orig`, actual: { file: `${o.live}.orig` }, expected: o.original, norm: text }] : []),
    ...(o.horizon >= 3 ? [{ key: 'changelog', label: `the changelog line of ${o.live}`, requireFile: o.live, actual: { command: o.strictness === 0 ? `grep '^# changed:' ${shq(o.live)}` : `tail -n 1 ${shq(o.live)}` }, expected: `${o.changelog}\n`, norm: text }] : []),
    ...(o.horizon >= 4 ? [{ key: 'reload', label: 'app/RELOAD', requireFile: 'app/RELOAD', actual: { file: 'app/RELOAD' }, expected: `${o.live}\n`, norm: text }] : []),
  ];
}

function oracleScript(live: string, wanted: Map<string, string>, horizon: number, changelog: string): string {
  const edits = [...wanted].map(([k, v]) => `-e ${shq(`s|^[#;[:space:]]*${k}[[:space:]]*=.*$|${k} = ${v}|`)}`).join(' ');
  return ['#!/bin/sh', '# Reference solution: knows the live file and every wanted value.', 'set -e',
    ...(horizon >= 2 ? [`cp ${shq(live)} ${shq(`${live}.orig`)}`] : []),
    `sed -E ${edits} ${shq(live)} > .oracle-config`,
    ...(horizon >= 3 ? [`printf '%s\\n' ${shq(changelog)} >> .oracle-config`] : []),
    `cat .oracle-config > ${shq(live)}`, 'rm -f .oracle-config',
    ...(horizon >= 4 ? [`printf '%s\\n' ${shq(live)} > app/RELOAD`] : []), ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = settings.map((s) => ({
  id: s.key,
  question: `What should \`${s.key}\` be set to?`,
  guess: '',
  parse: (t: string) => new RegExp(`\`${s.key}\` to \`([^\`]+)\``).exec(t)?.[1],
}));

/**
 * The sed edits that set each wanted key in `cfg`; a slip misplaces a line (order), squeezes its spaces or leaves it
 * commented. Consecutive substitutions go into one `sed -i` with an `-e` each: every one rewrites only its own key's
 * line, so applying them line by line gives what one sed per key gave.
 */
function editCommand(k: Knowledge, cfg: string, s: Slip | undefined): string {
  const parts: string[] = [];
  let subs: string[] = [];
  const flush = (): void => {
    if (subs.length) parts.push(`sed -E -i ${subs.map((x) => (subs.length > 1 ? `-e ${x}` : x)).join(' ')} ${cfg}`);
    subs = [];
  };
  for (const [i, key] of k.wanted.entries()) {
    const value = k.facts.get(key);
    const fumble = i === 0 ? s : undefined; // a slip hits the first key
    const eq = fumble === 'space' ? '=' : ' = ';
    if (fumble === 'order' && value !== undefined) {
      flush();
      parts.push(`sed -E -i ${shq(`/^[#;[:space:]]*${key}[[:space:]]*=/d`)} ${cfg} && printf '%s\\n' ${shq(`${key}${eq}${value}`)} >> ${cfg}`);
      continue;
    }
    // Unknown value: the agent can only uncomment the line and keep what is there. A wrong value is a quoted one.
    const shown = fumble === 'content' ? `"${value ?? '\\2'}"` : value ?? '\\2';
    subs.push(shq(`s|^[#;[:space:]]*(${key})[[:space:]]*=[[:space:]]*(.*)$|${key}${eq}${shown}|`));
  }
  flush();
  return parts.join(' && ') || 'true';
}

const playbook: FamilyPlaybook = {
  bestIdiom: 'sed',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    const line = text.split('\n').find((l) => l.startsWith(fixSentence)) ?? '';
    k.wanted = line.slice(fixSentence.length).replace(/\.$/, '').split(',').map((w) => w.trim()).filter((w) => settings.some((s) => s.key === w));
    k.stages = 1 + (text.includes(stageText.backup) ? 1 : 0) + (text.includes(stageText.changelog) ? 1 : 0) + (text.includes(stageText.reload) ? 1 : 0);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
  },
  survey: 'ls app/conf',
  candidates: (output) => listedFiles(output, 'app/conf', /\.ini$/),
  inspect: (path) => `head -n 1 ${shq(path)}`,
  observeInspect: (_path, output) => (output.startsWith('; OLD COPY') ? 'decoy' : 'input'),
  stages(k): StageDef[] {
    const all: Slip[] = ['content', 'order', 'space'];
    return [
      { name: 'edit', slips: all },
      ...(k.stages >= 2 ? [{ name: 'backup', slips: all }] : []),
      ...(k.stages >= 3 ? [{ name: 'changelog', slips: all }] : []),
      ...(k.stages >= 4 ? [{ name: 'reload', slips: ['content', 'space'] as Slip[] }] : []),
    ];
  },
  outputPath: (k) => k.inputs[0] ?? 'app/conf/service.ini',
  solve(k, _idiom, slip): PlannedCommand[] {
    const cmds: PlannedCommand[] = [{ stage: 'prepare', command: 'mkdir -p .work/pristine' }];
    const live = k.inputs[0] ?? 'app/conf/service.ini';
    for (const [i, path] of (k.inputs.length ? k.inputs : [live]).entries()) {
      const cfg = shq(path);
      // Every attempt starts from the file as it was: kept aside on the first one, put back on a retry.
      const pristine = shq(`.work/pristine/${path.replace(/\//g, '_')}`);
      cmds.push({ stage: 'prepare', command: `[ -f ${pristine} ] || cp ${cfg} ${pristine}; cat ${pristine} > ${cfg}` });
      if (k.stages >= 2) {
        const s = i === 0 ? slip('backup') : undefined;
        const copy = s === 'order' ? `LC_ALL=C sort ${cfg}` : s === 'space' ? `sed 's/$/ /' ${cfg}` : `cat ${cfg}`;
        // A content slip takes the backup after the edit instead of before it.
        if (s !== 'content') cmds.push({ stage: 'backup', command: `${copy} > ${shq(`${path}.orig`)}` });
        cmds.push({ stage: 'edit', command: editCommand(k, cfg, i === 0 ? slip('edit') : undefined) });
        if (s === 'content') cmds.push({ stage: 'backup', command: `cat ${cfg} > ${shq(`${path}.orig`)}` });
      } else {
        cmds.push({ stage: 'edit', command: editCommand(k, cfg, i === 0 ? slip('edit') : undefined) });
      }
      if (k.stages >= 3) {
        const s = i === 0 ? slip('changelog') : undefined;
        const keys = s === 'content' ? [...k.wanted].reverse() : k.wanted;
        const text = `# changed: ${keys.join(',')}${s === 'space' ? ' ' : ''}`;
        cmds.push({ stage: 'changelog', command: s === 'order' ? `{ printf '%s\\n' ${shq(text)}; cat ${cfg}; } > .work/cfg && cat .work/cfg > ${cfg}` : `printf '%s\\n' ${shq(text)} >> ${cfg}` });
      }
    }
    if (k.stages >= 4) {
      const s = slip('reload');
      cmds.push({ stage: 'reload', command: `printf '%s\\n' ${shq(`${s === 'content' ? live.replace(/^app\/conf\//, '') : live}${s === 'space' ? ' ' : ''}`)} > app/RELOAD` });
    }
    return cmds;
  },
};

export const configRepair: TaskFamily = {
  name,
  title: 'Config repair',
  maxLevel: standardMaxLevel,
  knobs: standardKnobs,
  skills: ['configuration', 'sed', 'clarification'],
  generate,
  playbook,
};
