import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeRollout } from '../core/rollout/trajectory.js';
import { SafeFolder } from '../files/safeFolder.js';
import { damagedSuffix } from './keepDamaged.js';
import { RunFileError } from './runFiles.js';
import { generationOfFolder, isSafeId } from './runPaths.js';
import { readRollout, type RunIndex } from './runReader.js';

/**
 * Adds to the index every intact rollout file that no valid `rollout.finished` event announces (its line was
 * corrupted, or a kill came between the file and its event), with a problem saying so; damaged files become
 * problems too. Returns how many rollouts were added. Temp files of an atomic write are not rollouts yet.
 * For report, export and resume of a run that is not running; the live tree never opens rollout files.
 */
export function salvageRollouts(index: RunIndex): number {
  const folder = SafeFolder.open(index.dir, { boundaryName: 'the run directory' });
  const top = folder.entry('rollouts');
  if (top.kind !== 'dir') return 0;
  let added = 0;
  for (const name of readdirSync(top.real).sort()) {
    const g = generationOfFolder(name);
    const rel = `rollouts/${name}`;
    const e = folder.entry(rel);
    if (e.kind !== 'dir') continue;
    if (g === undefined) {
      index.problems.push({ file: rel, message: 'not a generation folder (g0000, g0001, ...); ignored' });
      continue;
    }
    for (const file of readdirSync(e.real).sort()) {
      if (damagedSuffix.test(file)) {
        index.problems.push({ file: `${rel}/${file}`, message: 'a damaged rollout file that resume kept when it played the rollout again' });
        continue;
      }
      if (file.includes('.tmp-') || !file.endsWith('.json')) continue;
      const id = file.slice(0, -'.json'.length);
      if (index.rollouts.has(id)) continue;
      const fileRel = `${rel}/${file}`;
      if (!isSafeId(id)) {
        index.problems.push({ file: fileRel, message: 'not named after a rollout id; ignored' });
        continue;
      }
      try {
        addSummary(index, summarizeRollout(readRollout(index.dir, { generation: g, id })));
        added++;
        index.problems.push({ file: fileRel, message: 'no rollout.finished event for it in events.jsonl; its summary was rebuilt from the file' });
      } catch (err) {
        const why = err instanceof RunFileError ? err.reason : err instanceof Error ? err.message : String(err);
        index.problems.push({ file: fileRel, message: `${why}; skipped` });
      }
    }
  }
  return added;
}

function addSummary(index: RunIndex, s: ReturnType<typeof summarizeRollout>): void {
  index.rollouts.set(s.id, s);
  let g = index.generations.find((x) => x.index === s.generation);
  if (!g) {
    g = { index: s.generation, agentId: '', pairs: [], rollouts: [], inFlight: [], finished: false };
    index.generations.push(g);
    index.generations.sort((a, b) => a.index - b.index);
  }
  g.rollouts.push(s);
  g.inFlight = g.inFlight.filter((id) => id !== s.id);
}

