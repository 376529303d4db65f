import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendCuration, readCuration, type CurationEntry } from '../../../src/store/curation.js';
import { openRun, readEnvironment } from '../../../src/store/runReader.js';
import { datasetItems, describeFilters, exportArguments, filterChoices, matchesFilters, noFilters, type DatasetItem } from '../../../src/viewdata/datasetItems.js';
import { makeRun } from '../../fixtures/makeRun.js';

describe('datasets: the Dataset view model', () => {
  let out: string;
  let items: DatasetItem[];
  let rolloutIds: string[];

  before(async function () {
    this.timeout(20_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-dataset-model-'));
    const runDir = await makeRun(out, { generations: 2, pairsPerGeneration: 2, k: 3, hintPlays: 0 });
    const run = openRun(runDir);
    const rollouts = [...run.rollouts.values()];
    rolloutIds = rollouts.slice(0, 3).map((r) => r.id);
    const at = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const entries: CurationEntry[] = [
      { at: at(1), target: { kind: 'rollout', id: rolloutIds[0]! }, action: 'accept' },
      { at: at(2), target: { kind: 'rollout', id: rolloutIds[1]! }, action: 'reject', text: 'agent guessed' },
      { at: at(3), target: { kind: 'rollout', id: rolloutIds[2]! }, action: 'label', label: 'clarification' },
      { at: at(4), target: { kind: 'rollout', id: rolloutIds[2]! }, action: 'comment', text: 'good question asked' },
      { at: at(5), target: { kind: 'environment', id: rollouts[0]!.envId }, action: 'accept' },
    ];
    await appendCuration(runDir, entries);
    items = datasetItems({
      run,
      curation: readCuration(runDir),
      environment: (id) => {
        const spec = readEnvironment(runDir, id);
        return { family: spec.family, skills: spec.skills };
      },
    });
  });

  after(() => rmSync(out, { recursive: true, force: true }));

  it('lists every curated target, newest decision first, with its reward, generation, family and band', () => {
    assert.equal(items.length, 4);
    assert.equal(items[0]!.target.kind, 'environment');
    const labelled = items.find((i) => i.target.id === rolloutIds[2])!;
    assert.deepEqual(labelled.labels, ['clarification']);
    assert.deepEqual(labelled.comments, ['good question asked']);
    for (const i of items) {
      assert.equal(typeof i.reward, 'number');
      assert.equal(typeof i.generation, 'number');
      assert.ok(i.family, 'family from the run\'s environment file');
      assert.equal(typeof i.inBand, 'boolean');
    }
    assert.equal(items.find((i) => i.target.id === rolloutIds[1])!.verdictNote, 'agent guessed');
  });

  it('filters by verdict, band, reward, tag, family and generation', () => {
    assert.deepEqual(items.filter((i) => matchesFilters(i, { ...noFilters, verdict: 'accepted' })).map((i) => i.verdict), ['accepted', 'accepted']);
    const tagged = items.filter((i) => matchesFilters(i, { ...noFilters, tags: ['clarification'] }));
    assert.ok(tagged.some((i) => i.target.id === rolloutIds[2]), 'a curation label counts as a tag');
    assert.ok(tagged.every((i) => i.labels.includes('clarification') || i.tags.includes('clarification')));
    const rewards = items.map((i) => i.reward!).sort((a, b) => a - b);
    assert.equal(items.filter((i) => matchesFilters(i, { ...noFilters, minReward: rewards[2] })).length, items.filter((i) => i.reward! >= rewards[2]!).length);
    const inBand = items.filter((i) => matchesFilters(i, { ...noFilters, inBand: true }));
    assert.ok(inBand.every((i) => i.inBand === true));
    const { families, generations } = filterChoices(items);
    assert.equal(items.filter((i) => matchesFilters(i, { ...noFilters, families: [families[0]!] })).every((i) => i.family === families[0]), true);
    assert.ok(items.filter((i) => matchesFilters(i, { ...noFilters, generations: [generations[0]!] })).length > 0);
  });

  it('describes the filters and passes them on to coevolve export', () => {
    const f = { ...noFilters, verdict: 'accepted' as const, inBand: true, minReward: 0.5, tags: ['clarification'], generations: [1] };
    assert.equal(describeFilters(f), 'accepted · in band · reward ≥ 0.5 · tag clarification · gen 1');
    assert.equal(describeFilters(noFilters), '');
    const { args, unsupported } = exportArguments(f);
    assert.deepEqual(args, ['--filter', 'accepted', '--min-reward', '0.5', '--tag', 'clarification', '--generation', '1']);
    assert.deepEqual(unsupported, ['in band']);
    // The editor exports what the CLI exports by default (issue 17, item 4): showing every verdict does not widen it.
    assert.deepEqual(exportArguments(noFilters).args, ['--filter', 'accepted']);
    assert.deepEqual(exportArguments(noFilters, true).args, ['--filter', 'all'], 'widened only when asked');
    assert.deepEqual(exportArguments(f, true).args.slice(0, 2), ['--filter', 'accepted'], 'an accepted-only view stays accepted-only');
  });
});
