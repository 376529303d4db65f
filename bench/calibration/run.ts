// Calibration of the built-in side (issue 12): does every knob step, user behaviour step and gene step move the
// default agent's success measurably? Figures only, never a timed assertion.
//   npm run bench:calibration [-- --sections knobs,users,moves,levels,genes --per-seed 10 --backend bwrap --concurrency 4 --users ID,..
//                                 --base-level 2 --base-knobs '{"feedback":1}' --genes '{"explore":1}']
//   (the base defaults to where the demo's seeds start)
//
// Method, fixed before any tuning:
// - Seeds are 1-5 and 2026 (the efficacy audit's), fixed here and never chosen after the fact. Each seed gives
//   `--per-seed` content indices; index i of seed s has content seed hash("calibration/s/family/i") and rollout id
//   "cal-s-family-i" in every cell, so two cells differ only by the knob (or user, or gene) under study: paired plays.
// - The default agent is the starting agent of environments/demo.run.yaml; the reference user is the built-in
//   cooperative novice. The base setting of each family is where the demo's seeds start (its builtinLevel with its
//   builtinKnobs over it), or level `--base-level` with `--base-knobs` over it; each knob is swept over its whole range
//   with the other knobs at the base.
// - Success rates carry 95 % Wilson intervals; steps are paired differences with a 95 % normal interval.
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRng, hashString } from '../../src/core/ports/rng.js';
import type { SandboxBackendName } from '../../src/core/ports/sandbox.js';
import type { AgentGenes } from '../../src/core/spec/agent.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { loadRunConfig } from '../../src/core/spec/load.js';
import { builtinKnobsSchema } from '../../src/core/spec/run.js';
import type { UserProfile } from '../../src/core/spec/user.js';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import type { KnobName, Knobs, TaskFamily } from '../../src/builtin/families/family.js';
import { knobNames, resolveKnobs } from '../../src/builtin/families/family.js';
import { builtinFamilies } from '../../src/builtin/families/registry.js';
import { geneMoves } from '../../src/builtin/agentEvolver.js';
import { cooperativeNovice, seedUsers } from '../../src/builtin/user/seedUsers.js';
import { realismIndicators, realismViolations } from '../../src/core/metrics/realismIndicators.js';
import { applyUserMove, userMoves } from '../../src/builtin/user/userEvolver.js';
import { createSandboxBackend } from '../../src/sandbox/factory.js';
import type { Play } from './plays.js';
import { Player } from './plays.js';
import type { PairedDiff, Rate } from './stats.js';
import { fmtDiff, fmtRate, pairedDiff, rate } from './stats.js';

/** Fixed before tuning (issue 12): the audit's seeds. */
export const calibrationSeeds = [1, 2, 3, 4, 5, 2026] as const;

const args = process.argv.slice(2);
const opt = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : fallback;
};
const sections = new Set(opt('sections', 'knobs,users,moves,levels,genes').split(','));
const perSeed = Number(opt('per-seed', '10'));
const perSeedPooled = Number(opt('per-seed-pooled', '5'));
const demo = loadRunConfig(readFileSync(resolve('environments/demo.run.yaml'), 'utf8'), 'environments/demo.run.yaml');
const baseLevel = Number(opt('base-level', String(demo.population.builtinLevel)));
// --base-knobs '{"feedback":1}' overrides knobs of every family's base (a diagnosis aid: does a knob bite only when
// another one is set?); the tables print each base they used. Without --base-level the demo's own knobs apply.
const demoKnobs = args.includes('--base-level') ? {} : (demo.population.builtinKnobs ?? {});
// Checked by the run config's own schema: the same names and ranges a run's population.builtinKnobs takes.
const parsedKnobs = builtinKnobsSchema.safeParse(JSON.parse(opt('base-knobs', JSON.stringify(demoKnobs))));
if (!parsedKnobs.success) {
  for (const i of parsedKnobs.error.issues) console.error(`--base-knobs: ${i.path.join('.') || '(value)'}: ${i.message}; knobs are ${knobNames.join(', ')}`);
  process.exit(2);
}
const baseKnobs: Partial<Knobs> = parsedKnobs.data;
/** The base as the tables name it: "level 1.5 with {"feedback":1}". */
const baseLabel = `level ${baseLevel}${Object.keys(baseKnobs).length ? ` with ${JSON.stringify(baseKnobs)}` : ''}`;
const concurrency = Number(opt('concurrency', '4'));
const backendName = opt('backend', 'bwrap') as SandboxBackendName;
const familyNames = opt('families', '').split(',').filter(Boolean);
const families = builtinFamilies.filter((f) => familyNames.length === 0 || familyNames.includes(f.name));
// --users a,b limits the moves section to those seed users (a tuning aid; the table names the users it played).
const userNames = opt('users', '').split(',').filter(Boolean);

// --genes '{...}' plays another starting agent (a tuning aid); the table always prints the genes it used.
const defaultGenes: AgentGenes = { ...demo.agent.genes, ...(JSON.parse(opt('genes', '{}')) as Partial<AgentGenes>) };
const bestGenes = (f: TaskFamily): AgentGenes => ({ askFirst: 1, questionBudget: 6, explore: 1, verify: 1, idiom: f.playbook.bestIdiom, persistence: 3 });
const reference = cooperativeNovice();

interface Index { seed: number; i: number }
const indices = (n: number): Index[] => calibrationSeeds.flatMap((seed) => Array.from({ length: n }, (_, i) => ({ seed, i })));
const contentSeed = (f: TaskFamily, x: Index): number => hashString(`calibration/${x.seed}/${f.name}/${x.i}`) & 0x7fffffff;
const rolloutId = (f: TaskFamily, x: Index): string => `cal-${x.seed}-${f.name}-${x.i}`;

const envAt = (f: TaskFamily, knobs: Knobs, x: Index): EnvironmentSpec => f.generate({ knobs, contentSeed: contentSeed(f, x) }, createRng(0));
const playsOf = (f: TaskFamily, knobs: Knobs, xs: Index[], user: UserProfile, genes: AgentGenes): Play[] =>
  xs.map((x) => ({ env: envAt(f, knobs, x), user, genes, runSeed: x.seed, rolloutId: rolloutId(f, x) }));

const json: Record<string, unknown> = { seeds: calibrationSeeds, perSeed, perSeedPooled, baseLevel, baseKnobs, backend: backendName, defaultGenes, referenceUser: reference.id };
const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const pad = (s: string, n: number): string => s.padEnd(n);
const letters: Record<KnobName, string> = { horizon: 'h', hiddenState: 's', feedback: 'f', distractors: 'd', strictness: 't' };
const code = (k: Knobs): string => knobNames.map((n) => `${letters[n]}${k[n]}`).join('');

/** A knob's values from easiest to hardest. */
function harderOrder(f: TaskFamily, knob: KnobName): number[] {
  const def = f.knobs[knob];
  const up = Array.from({ length: def.max - def.min + 1 }, (_, i) => def.min + i);
  return def.harder === 'up' ? up : up.reverse();
}

interface StepRow { from: string; to: string; rate: Rate; step?: PairedDiff }

async function ladder(player: Player, cells: { label: string; plays: Play[] }[]): Promise<StepRow[]> {
  const results = await Promise.all(cells.map((c) => player.playAll(c.plays)));
  return cells.map((c, i) => ({
    from: i > 0 ? (cells[i - 1] as { label: string }).label : '',
    to: c.label,
    rate: rate(results[i]!),
    ...(i > 0 ? { step: pairedDiff(results[i - 1]!, results[i]!) } : {}),
  }));
}

function printLadder(name: string, rows: StepRow[]): void {
  rows.forEach((r, i) => {
    const step = r.step ? `${pad(`${r.from}→${r.to}`, 22)} ${fmtDiff(r.step)}` : '';
    out(`  ${pad(i === 0 ? name : '', 18)} ${pad(r.to, 14)} ${pad(fmtRate(r.rate), 17)} ${step}`);
  });
}

const graded = (d: PairedDiff): boolean => d.mean <= -0.05;
const inAim = (d: PairedDiff): boolean => d.mean <= -0.05 && d.mean >= -0.12;

async function knobSection(player: Player): Promise<void> {
  out(`\n== Knob steps: success of the default agent per knob value, other knobs at ${baseLabel} (paired; n = ${perSeed * calibrationSeeds.length} per cell) ==`);
  out(`  ${pad('knob', 18)} ${pad('value', 14)} ${pad('success [95% CI]', 17)} ${pad('harder step', 22)} Δ success [95% CI]`);
  const all: Record<string, unknown> = {};
  const summary: string[] = [];
  for (const f of families) {
    const base = resolveKnobs(f, { level: baseLevel, knobs: baseKnobs });
    out(`${f.name} (base ${code(base)}, user ${reference.id})`);
    const xs = indices(perSeed);
    const fam: Record<string, StepRow[]> = {};
    let steps = 0, gradedSteps = 0, aimSteps = 0;
    for (const knob of knobNames) {
      const rows = await ladder(player, harderOrder(f, knob).map((v) => ({ label: String(v), plays: playsOf(f, { ...base, [knob]: v }, xs, reference, defaultGenes) })));
      printLadder(knob, rows);
      fam[knob] = rows;
      for (const r of rows) if (r.step) { steps++; if (graded(r.step)) gradedSteps++; if (inAim(r.step)) aimSteps++; }
    }
    all[f.name] = { base, knobs: fam };
    summary.push(`  ${pad(f.name, 14)} harder steps lowering success by >= .05: ${gradedSteps}/${steps}; by .05-.12: ${aimSteps}/${steps}`);
  }
  out('summary');
  summary.forEach((s) => out(s));
  json.knobs = all;
}

/**
 * Chains of the user evolver's own moves from the reference user: along each behaviour knob, the easier moves first
 * (undone back to the easiest reachable user), then harder moves until the bound; and each non-collaborative mode.
 */
function userChains(): { name: string; values: { label: string; user: UserProfile }[] }[] {
  const label = (u: UserProfile, knob: string): string => (knob === 'expertise' ? u.persona.expertise : String(u.behavior[knob as keyof UserProfile['behavior']]));
  const chain = (knob: string, harder: string, easier: string): { name: string; values: { label: string; user: UserProfile }[] } => {
    let start = reference;
    for (let i = 0; i < 2; i++) {
      const p = userMoves(start, 'easier').some((m) => m.id === easier) ? applyUserMove(start, easier, 0) : undefined;
      if (!p?.ok) break;
      start = p.child;
    }
    const values = [{ label: label(start, knob), user: start }];
    for (let u = start, i = 0; i < 6; i++) {
      const p = applyUserMove(u, harder, 0);
      if (!p.ok) break;
      u = p.child;
      values.push({ label: label(u, knob), user: u });
    }
    return { name: knob, values };
  };
  return [
    chain('disclosure', 'harder:less_disclosure', 'easier:more_disclosure'),
    chain('ambiguity', 'harder:more_ambiguity', 'easier:less_ambiguity'),
    chain('patience', 'harder:less_patience', 'easier:more_patience'),
    chain('cooperativeness', 'harder:less_cooperative', 'easier:more_cooperative'),
    chain('expertise', 'harder:less_expertise', 'easier:more_expertise'),
    { name: 'nonCollaborative', values: [{ label: 'none', user: reference }, ...userMoves(reference, 'harder').filter((m) => m.knob === 'nonCollaborative').map((m) => ({ label: String(m.to), user: (applyUserMove(reference, m.id, 0) as { child: UserProfile }).child }))] },
  ];
}

/** Plays of every family's base environment for one user: pooled over families, paired by index. */
const pooledPlays = (user: UserProfile, genes: (f: TaskFamily) => AgentGenes, level = baseLevel): Play[] =>
  families.flatMap((f) => playsOf(f, resolveKnobs(f, { level, ...(level === baseLevel ? { knobs: baseKnobs } : {}) }), indices(perSeedPooled), user, genes(f)));

async function userSection(player: Player): Promise<void> {
  out(`\n== User behaviour steps: success of the default agent, every family at ${baseLabel}, pooled (paired; n = ${perSeedPooled * calibrationSeeds.length * families.length} per cell) ==`);
  out(`  ${pad('behaviour', 18)} ${pad('value', 14)} ${pad('success [95% CI]', 17)} ${pad('step', 22)} Δ success [95% CI]`);
  const all: Record<string, StepRow[]> = {};
  out(`  (each step is one move of the built-in user evolver from the reference user ${reference.id})`);
  for (const l of userChains()) {
    const rows = await ladder(player, l.values.map((v) => ({ label: v.label, plays: pooledPlays(v.user, () => defaultGenes) })));
    printLadder(l.name, rows);
    all[l.name] = rows;
  }
  json.users = all;
}

/**
 * Every harder move of the user evolver from every seed user (the parents the loop starts from), each against its
 * parent in the same run on the same content and rollout ids: the per-move effect the loop's admission rule sees, and
 * whether the child's observable behaviour stays inside the realism indicator bounds.
 */
async function moveSection(player: Player): Promise<void> {
  const n = perSeedPooled * calibrationSeeds.length * families.length;
  out(`\n== User moves: each harder move of every seed user vs its parent, every family at ${baseLabel}, pooled (paired; n = ${n} per cell) ==`);
  out(`  ${pad('user / move', 34)} ${pad('change', 26)} ${pad('success [95% CI]', 17)} ${pad('Δ vs parent [95% CI]', 22)} ${pad('disc.', 6)} realism`);
  const all: Record<string, unknown[]> = {};
  const bites: string[] = [];
  let moves = 0;
  for (const parent of seedUsers().filter((u) => userNames.length === 0 || userNames.includes(u.id))) {
    const base = await player.results(pooledPlays(parent, () => defaultGenes));
    const baseOk = base.map((r) => r.success);
    const violations = (rs: { record: RolloutRecord }[]): string[] => realismViolations(realismIndicators(rs.map((r) => r.record), true));
    const pv = violations(base);
    out(`  ${pad(parent.id, 34)} ${pad('(parent)', 26)} ${pad(fmtRate(rate(baseOk)), 17)} ${pad('', 22)} ${pad('', 6)} ${pv.length ? pv.join('; ') : 'within'}`);
    const rows: unknown[] = [];
    for (const m of userMoves(parent, 'harder')) {
      const p = applyUserMove(parent, m.id, 0);
      if (!p.ok) continue;
      moves++;
      const res = await player.results(pooledPlays(p.child, () => defaultGenes));
      const ok = res.map((r) => r.success);
      const d = pairedDiff(baseOk, ok);
      const v = violations(res);
      if (d.high < 0) bites.push(`${parent.id} ${m.id}`);
      out(`  ${pad(`  ${m.id}`, 34)} ${pad(`${m.from} → ${m.to}`, 26)} ${pad(fmtRate(rate(ok)), 17)} ${pad(fmtDiff(d), 22)} ${pad(String(d.discordant), 6)} ${v.length ? v.join('; ') : 'within'}`);
      rows.push({ move: m.id, from: m.from, to: m.to, rate: rate(ok), step: d, violations: v });
    }
    all[parent.id] = rows;
  }
  out(`summary: ${bites.length} of ${moves} harder moves lower success with a 95 % interval below 0`);
  json.moves = all;
}

async function levelSection(player: Player): Promise<void> {
  out(`\n== Success per level: default agent vs every gene at its best (user ${reference.id}; n = ${perSeed * calibrationSeeds.length} per cell) ==`);
  out(`  ${pad('family', 14)} ${pad('agent', 8)} ${[1, 2, 3, 4, 5].map((l) => pad(`L${l}`, 17)).join(' ')}`);
  const all: Record<string, Record<string, Rate[]>> = {};
  for (const f of families) {
    all[f.name] = {};
    for (const [label, genes] of [['default', defaultGenes], ['best', bestGenes(f)]] as const) {
      const rates: Rate[] = [];
      for (let level = 1; level <= f.maxLevel; level++) rates.push(rate(await player.playAll(playsOf(f, resolveKnobs(f, { level }), indices(perSeed), reference, genes))));
      all[f.name]![label] = rates;
      out(`  ${pad(f.name, 14)} ${pad(label, 8)} ${rates.map((r) => pad(fmtRate(r), 17)).join(' ')}`);
    }
  }
  json.levels = all;
}

/** Single gene steps from the default agent: the built-in agent evolver's own moves. */
const geneSteps = (g: AgentGenes): { label: string; genes: AgentGenes }[] => geneMoves(g).map((m) => ({ label: m.change, genes: { ...g, [m.gene]: m.to } }));

async function geneSection(player: Player): Promise<void> {
  const n = perSeedPooled * calibrationSeeds.length * families.length;
  out(`\n== Gene steps: one mutation from the default agent, every family at ${baseLabel}, pooled (paired; n = ${n} per cell) ==`);
  const base = await player.playAll(pooledPlays(reference, () => defaultGenes));
  out(`  default ${JSON.stringify(defaultGenes)}: ${fmtRate(rate(base))}`);
  const rows: { label: string; rate: Rate; step: PairedDiff }[] = [];
  for (const s of geneSteps(defaultGenes)) {
    const r = await player.playAll(pooledPlays(reference, () => s.genes));
    const row = { label: s.label, rate: rate(r), step: pairedDiff(base, r) };
    rows.push(row);
    out(`  ${pad(s.label, 28)} ${pad(fmtRate(row.rate), 17)} Δ ${fmtDiff(row.step)}${row.step.low > 0 || row.step.high < 0 ? '  (interval excludes 0)' : ''}`);
  }
  json.genes = rows;
}

async function main(): Promise<void> {
  const load0 = loadavg();
  const t0 = Date.now();
  const backend = createSandboxBackend(backendName, { warn: () => undefined });
  const player = new Player(backend, concurrency);
  out(`calibration bench: backend ${backendName}, concurrency ${concurrency}, seeds ${calibrationSeeds.join(',')}, load average ${load0.map((x) => x.toFixed(2)).join(' ')}`);
  out(`default agent (environments/demo.run.yaml${args.includes("--genes") ? " with --genes" : ""}): ${JSON.stringify(defaultGenes)}`);
  try {
    if (sections.has('knobs')) await knobSection(player);
    if (sections.has('users')) await userSection(player);
    if (sections.has('moves')) await moveSection(player);
    if (sections.has('levels')) await levelSection(player);
    if (sections.has('genes')) await geneSection(player);
  } finally {
    await backend.dispose();
  }
  const load1 = loadavg();
  out(`\n${player.played} rollouts (${player.errors} with status error) in ${Math.round((Date.now() - t0) / 1000)} s; load average at the end ${load1.map((x) => x.toFixed(2)).join(' ')}`);
  json.rollouts = player.played;
  json.errors = player.errors;
  json.loadAverage = { start: load0, end: load1 };
  out(JSON.stringify(json));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
