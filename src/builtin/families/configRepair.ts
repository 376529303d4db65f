import type { Rng } from '../../core/ports/rng.js';
import { createRng } from '../../core/ports/rng.js';
import type { EnvironmentSpec, HiddenFact, SandboxFile } from '../../core/spec/environment.js';
import { environmentSpecSchema } from '../../core/spec/environment.js';
import { specApiVersion } from '../../core/spec/common.js';
import type { FactSlot, FamilyPlaybook, Knowledge, PlannedCommand } from '../agent/playbook.js';
import { shq } from '../shellQuote.js';
import type { GenerateInput, TaskFamily } from './family.js';
import { chooseHidden, difficultyOf, drawContentSeed, environmentId, resolveKnobs, standardKnobs, standardMaxLevel } from './family.js';
import { buildFormatCheck, checkScriptPath } from './formatCheck.js';
import { buildVerifier, builtinRewardFile, textNorm } from './verifierScript.js';

const name = 'config-repair';
const services = ['orders', 'billing', 'catalog', 'ledger', 'notifier', 'gateway'];
const words = ['alpha', 'bravo', 'delta', 'orion', 'vega', 'nova', 'atlas'];

interface Setting { key: string; section: string; current: string; keywords: string[]; pick(r: Rng): string }

// The settings a config holds; a task asks to fix `horizon` of them. Values are drawn to differ from the current ones.
const settings: Setting[] = [
  { key: 'port', section: 'server', current: '8080', keywords: ['port', 'listen'], pick: (r) => String(r.int(9000, 9999)) },
  { key: 'workers', section: 'server', current: '2', keywords: ['workers', 'threads', 'processes'], pick: (r) => String(r.int(3, 16)) },
  { key: 'db_name', section: 'database', current: 'app', keywords: ['database', 'db'], pick: (r) => `${r.pick(words)}_db` },
  { key: 'timeout', section: 'database', current: '30', keywords: ['timeout', 'seconds'], pick: (r) => String(r.int(45, 300)) },
  { key: 'log_level', section: 'logging', current: 'info', keywords: ['log level', 'logging', 'verbosity'], pick: (r) => r.pick(['warn', 'error', 'debug']) },
  { key: 'cache_dir', section: 'logging', current: '/var/cache/app', keywords: ['cache', 'directory'], pick: (r) => `/srv/cache/${r.pick(words)}` },
];
const sections = ['server', 'database', 'logging'];

const fixSentence = 'Fix these settings in the service\'s config file, in place (keep every other line as it is):';
const factText = (key: string, value: string) => `Set \`${key}\` to \`${value}\`.`;

function generate(input: GenerateInput, rng: Rng): EnvironmentSpec {
  const knobs = resolveKnobs(configRepair, input);
  const seed = drawContentSeed(rng);
  const r = createRng(seed);
  const service = r.pick(services);
  const targets = r.shuffle(settings).slice(0, knobs.horizon);
  const wanted = new Map(targets.map((s) => [s.key, s.pick(r)]));
  // Broken lines: a target is either set to the old value or commented out.
  const commented = new Set(targets.filter(() => r.chance(0.5)).map((s) => s.key));
  const render = (fix: boolean): string => {
    const lines = [`# ${service} service configuration`];
    for (const section of sections) {
      lines.push('', `[${section}]`);
      for (const s of settings.filter((x) => x.section === section)) {
        const value = fix ? (wanted.get(s.key) ?? s.current) : s.current;
        lines.push(!fix && commented.has(s.key) ? `# ${s.key} = ${value}` : `${s.key} = ${value}`);
      }
    }
    return lines.map((l) => `${l}\n`).join('');
  };
  const paths = r.shuffle(['app/conf/service.ini', 'app/conf/main.ini', 'app/conf/prod.ini', 'app/conf/server.ini', 'app/conf/live.ini', 'app/conf/default.ini', 'app/conf/site.ini']).slice(0, knobs.distractors + 1);
  const live = paths[0] as string;
  const files: SandboxFile[] = [
    { path: live, content: render(false) },
    { path: 'app/service.env', content: `SERVICE=${service}\nCONFIG_FILE=${live}\n` },
    ...paths.slice(1).map((p) => ({ path: p, content: render(false).replace(/= (\S+)/g, (m, v: string) => (r.chance(0.3) ? `= ${v}0` : m)) })),
  ];

  const factDefs: HiddenFact[] = targets.map((s) => ({ id: s.key, text: factText(s.key, wanted.get(s.key) as string), keywords: [s.key, ...s.keywords] }));
  const hidden = chooseHidden(factDefs, knobs.hiddenState, r);
  const instruction = [
    `The ${service} service reads the config file named in \`app/service.env\`; other .ini files in \`app/conf/\` are old copies.`,
    `${fixSentence} ${targets.map((s) => s.key).join(', ')}.`,
    ...factDefs.map((f, i) => (hidden.has(f.id) ? `I'll tell you what \`${targets[i]?.key}\` should be.` : f.text)),
    'Each setting is one line `key = value` inside its section.',
    knobs.feedback > 0 ? `Run \`sh ${checkScriptPath} <config file>\` to check the syntax before you finish.` : '',
  ].filter(Boolean).join('\n');
  if (knobs.feedback > 0) {
    files.push({ path: checkScriptPath, content: buildFormatCheck({ data: '^(|#.*|\\[[a-z]+\\]|[a-z_]+ = [^ ]+)$' }, knobs.feedback >= 2), mode: '755' });
  }

  // Strictness 0 compares the effective value of every key; 1 the whole file modulo spacing; 2 bytes.
  const keyNorm = `sed -n -E 's/^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*([^[:space:]]+)[[:space:]]*$/\\1=\\2/p' | awk -F= '{ v[$1] = $2 } END { for (k in v) print k "=" v[k] }' | LC_ALL=C sort`;
  const fileNorm = `sed -E -e 's/\\r$//' -e 's/[[:space:]]+$//' -e 's/^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*/\\1 = /' | grep -v '^$'`;
  const norm = knobs.strictness === 0 ? keyNorm : knobs.strictness === 1 ? fileNorm : textNorm(2);
  const verifier = buildVerifier(name, knobs.strictness, [{ key: 'config', label: live, requireFile: live, actual: `cat ${shq(live)}`, expected: render(true), norm }]);
  return environmentSpecSchema.parse({
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: environmentId(name, knobs, seed),
    title: `Config repair: ${targets.map((s) => s.key).join(', ')} of ${service}`,
    family: name,
    instruction,
    sandbox: { files, setup: ['chmod 644 app/conf/*.ini'] },
    verifier: { script: verifier.script, files: verifier.files, rewardFile: builtinRewardFile },
    oracle: { script: oracleScript(live, wanted) },
    hint: `The live config is ${live} (CONFIG_FILE in app/service.env). ${factDefs.map((f) => f.text).join(' ')} Commented-out lines (# key = ...) must be replaced in place, not duplicated.`,
    user: {
      request: `The ${service} service is misconfigured, can you fix its config?`,
      facts: factDefs,
      goal: `${live} has ${targets.map((s) => `${s.key} = ${wanted.get(s.key)}`).join(', ')} and is otherwise unchanged.`,
      requiredFacts: factDefs.filter((f) => hidden.has(f.id)).map((f) => f.id),
    },
    difficulty: input.knobs ? difficultyOf(configRepair, knobs) : (input.level ?? 1),
    knobs,
    skills: configRepair.skills,
    provenance: { source: `builtin:${name}`, author: 'coevolve built-in generator' },
  });
}

function oracleScript(live: string, wanted: Map<string, string>): string {
  const edits = [...wanted].map(([k, v]) => `-e ${shq(`s|^[#;[:space:]]*${k}[[:space:]]*=.*$|${k} = ${v}|`)}`).join(' ');
  return ['#!/bin/sh', '# Reference solution: knows the live file and every wanted value.', 'set -e',
    `sed -E ${edits} ${shq(live)} > .oracle-config`, `cat .oracle-config > ${shq(live)}`, 'rm -f .oracle-config', ''].join('\n');
}

// ---------------------------------------------------------------- the agent's side

const slots: FactSlot[] = settings.map((s) => ({
  id: s.key,
  question: `What should \`${s.key}\` be set to?`,
  guess: '',
  parse: (t: string) => new RegExp(`\`${s.key}\` to \`([^\`]+)\``).exec(t)?.[1],
}));

const playbook: FamilyPlaybook = {
  bestIdiom: 'sed',
  slots,
  readInstruction(text: string, k: Knowledge): void {
    const line = text.split('\n').find((l) => l.startsWith(fixSentence)) ?? '';
    k.wanted = line.slice(fixSentence.length).replace(/\.$/, '').split(',').map((w) => w.trim()).filter((w) => settings.some((s) => s.key === w));
    k.stages = Math.max(1, k.wanted.length);
    k.hasCheck = text.includes(`sh ${checkScriptPath}`);
  },
  explore(thorough: boolean, k: Knowledge, step: number): string | undefined {
    if (!thorough) return step === 0 ? 'ls app/conf' : undefined;
    const input = k.found.get('input');
    return ['ls -la app app/conf', 'cat app/service.env', input ? `cat ${shq(input)}` : undefined][step];
  },
  observe(command: string, output: string, k: Knowledge): void {
    if (command === 'cat app/service.env') {
      const m = /^CONFIG_FILE=(\S+)$/m.exec(output);
      if (m) k.found.set('input', m[1] as string);
    } else if (command.startsWith('ls') && !k.found.has('input')) {
      const first = output.split(/\s+/).filter((w) => /\.ini$/.test(w)).sort()[0];
      if (first) k.found.set('input', `app/conf/${first}`);
    }
  },
  outputPath: (k) => k.found.get('input') ?? 'app/conf/service.ini',
  solve(k, idiom, slip): PlannedCommand[] {
    const cfg = shq(k.found.get('input') ?? 'app/conf/service.ini');
    const cmds: PlannedCommand[] = [{ stage: 'prepare', command: 'mkdir -p .work' }];
    for (const key of k.wanted) {
      const s = slip(`set-${key}`);
      // Unknown value: the agent can only uncomment the line and keep what is there.
      const value = k.facts.get(key);
      const eq = s === 'space' ? '=' : ' = ';
      const lead = s === 'content' ? '^' : '^[#;[:space:]]*';
      if (s === 'order' && value !== undefined) {
        cmds.push({ stage: `set-${key}`, command: `printf '%s\\n' ${shq(`${key}${eq}${value}`)} >> ${cfg}` });
        continue;
      }
      const replacement = value === undefined ? `${key}${eq}\\2` : `${key}${eq}${value}`;
      cmds.push({
        stage: `set-${key}`,
        command: idiom === 'awk' && value !== undefined
          ? `awk -v k=${key} -v v=${shq(value)} '{ if ($0 ~ ("${lead}" k "[ \\t]*=")) print k "${eq}" v; else print }' ${cfg} > .work/cfg && cat .work/cfg > ${cfg}`
          : `sed -E -i ${shq(`s|${lead}(${key})[[:space:]]*=[[:space:]]*(.*)$|${replacement}|`)} ${cfg}`,
      });
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
