import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createRng } from '../../core/ports/rng.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { loadEnvironment, loadUser, SpecError } from '../../core/spec/load.js';
import type { RunConfig } from '../../core/spec/run.js';
import type { UserProfile } from '../../core/spec/user.js';
import { builtinFamilies } from '../../builtin/families/registry.js';
import { seedUsers } from '../../builtin/user/seedUsers.js';
import { readSpecTextSync } from '../../specs/workspace.js';
import type { HeldOutSeeds } from '../../core/evolution/frontierSelection.js';
import { UserError } from '../errors.js';
import { unknownFamilyMessage } from '../../specs/builtinFamilyRule.js';

/**
 * The initial population of a run: spec files named by the config (files or folders, relative to the config) plus
 * built-in families generated at the configured level (with `builtinKnobs` over it). A run with no users gets the built-in
 * seed users.
 */
export async function loadPopulation(config: RunConfig, baseDir: string): Promise<{ environments: EnvironmentSpec[]; users: UserProfile[]; heldOut?: HeldOutSeeds }> {
  const environments: EnvironmentSpec[] = [];
  const users: UserProfile[] = [];
  for (const p of config.population.environments) for (const f of specFiles(resolve(baseDir, p), '.env.yaml')) environments.push(read(f, loadEnvironment));
  for (const p of config.population.users) for (const f of specFiles(resolve(baseDir, p), '.user.yaml')) users.push(read(f, loadUser));
  for (const name of config.population.builtinFamilies) {
    const family = builtinFamilies.find((f) => f.name === name);
    if (!family) throw new UserError(`population.builtinFamilies: ${unknownFamilyMessage(name)}`);
    const level = Math.min(config.population.builtinLevel, family.maxLevel);
    // The stream is named by the level alone, so knobs set over a level change only what those knobs control.
    const knobs = config.population.builtinKnobs;
    environments.push(family.generate({ level, ...(knobs ? { knobs } : {}) }, createRng(`${config.seed}/seed/${name}/${level}`)));
  }
  if (users.length === 0) users.push(...seedUsers());
  const dup = firstDuplicate(environments.map((e) => e.id)) ?? firstDuplicate(users.map((u) => u.id));
  if (dup) throw new UserError(`the population has two specs with id "${dup}"; ids must be unique`);
  if (environments.length === 0) throw new UserError('the population is empty: add environment files or builtinFamilies to the run config');
  const heldOut = heldOutSets(config, users);
  return { environments, users, ...(heldOut ? { heldOut } : {}) };
}

/** Held-out environments per built-in family: fresh content at `heldOutLevel` (else the seed level), paired with the seed users in turn. */
export const heldOutPerFamily = 2;

function heldOutSets(config: RunConfig, users: UserProfile[]): HeldOutSeeds | undefined {
  const families = config.population.builtinFamilies.map((n) => builtinFamilies.find((f) => f.name === n)!).filter(Boolean);
  if (families.length === 0 || users.length === 0) return undefined;
  const draw = (purpose: 'test' | 'promotion', offset: number): HeldOutSeeds['test'] =>
    families.flatMap((family, fi) => Array.from({ length: heldOutPerFamily }, (_, i) => {
      const level = Math.min(config.population.heldOutLevel ?? config.population.builtinLevel, family.maxLevel);
      const env = family.generate({ level }, createRng(`${config.seed}/heldout-${purpose}/${family.name}/${level}/${i}`));
      return { env, user: users[(fi * heldOutPerFamily + i + offset) % users.length]! };
    }));
  return { test: draw('test', 0), promotion: draw('promotion', 1) };
}

function specFiles(path: string, suffix: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`population path not found: ${relative(process.cwd(), path) || path}`);
  }
  if (st.isFile()) return [path];
  const out: string[] = [];
  for (const e of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = join(path, e.name);
    // Linked folders are not walked (a cycle would never end); anything else under a spec name is read, and a
    // FIFO or a device is refused by the bounded reader.
    if (e.isDirectory()) out.push(...specFiles(full, suffix));
    else if (e.name.endsWith(suffix)) out.push(full);
  }
  return out;
}

function read<T>(file: string, load: (text: string, file: string) => T): T {
  const shown = relative(process.cwd(), file) || file;
  let text: string;
  try {
    text = readSpecTextSync(file, shown);
  } catch (err) {
    throw new UserError(err instanceof Error ? err.message : String(err));
  }
  try {
    return load(text, shown);
  } catch (err) {
    if (err instanceof SpecError) throw new UserError(err.message);
    throw err;
  }
}

function firstDuplicate(ids: string[]): string | undefined {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}
