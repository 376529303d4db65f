import * as assert from 'node:assert/strict';
import type { LineageNode, RejectedChild } from '../../../src/webview/protocol.js';
import { generationsLabel, rejectedGroups } from '../../../src/webview/render/rejectedChildren.js';

describe('refused children in the lineage', () => {
  const nodes: LineageNode[] = [
    { kind: 'environment', id: 'config-repair-h2s2f1d2t1-1b25f547', parent: null, operator: null, generation: 0, name: 'Config repair: workers, cache_dir, db_name of billing, 2 step(s)' },
    { kind: 'environment', id: 'config-repair-h2s2f1d0t1-a575d229', parent: 'config-repair-h2s2f1d2t1-1b25f547', operator: 'easier:distractors', generation: 1, name: 'Config repair: workers, cache_dir, db_name of billing, 2 step(s)' },
    { kind: 'user', id: 'upfront-planner', parent: null, operator: null, generation: 0, name: 'Robin (upfront planner)' },
  ];
  // As a real demo run recorded them: the same child refused in g0 and g1, a user child once, one of an unknown parent.
  const rejections: RejectedChild[] = [
    { kind: 'environment', id: 'config-repair-h2s2f1d0t1-a575d229', parent: 'config-repair-h2s2f1d2t1-1b25f547', operator: 'easier:distractors+easier:distractors', reason: 'duplicate: id config-repair-h2s2f1d0t1-a575d229 already in the archive', generation: 1 },
    { kind: 'environment', id: 'config-repair-h2s2f1d0t1-a575d229', parent: 'config-repair-h2s2f1d2t1-1b25f547', operator: 'easier:distractors+easier:distractors', reason: 'duplicate: same task as a sibling admitted before it', generation: 0 },
    { kind: 'user', id: 'upfront-planner-u927bd08b', parent: 'upfront-planner', operator: 'harder:enable_impatience', reason: 'not_harder: on 6 paired plays…', generation: 0 },
    { kind: 'environment', id: 'x-1', parent: 'gone-env', operator: 'harder:horizon', reason: 'oracle_failed: …', generation: 2 },
  ];

  it('lists a child refused in several generations once, named by its parent like an admitted node, with every refusal', () => {
    const groups = rejectedGroups(rejections, nodes);
    assert.deepEqual(groups.map((g) => [g.id, g.name, g.refusals.map((r) => r.generation), g.admitted]), [
      ['config-repair-h2s2f1d0t1-a575d229', 'Config repair: workers, cache_dir, db_name of billing, 2 step(s)', [0, 1], true],
      ['upfront-planner-u927bd08b', 'Robin (upfront planner)', [0], false],
      ['x-1', 'gone-env', [2], false],
    ]);
    assert.equal(generationsLabel(groups[0]!.refusals), 'g0 and g1');
    assert.equal(generationsLabel([{ generation: 1 }, { generation: 3 }, { generation: 4 }]), 'g1, g3 and g4');
  });

  it("keeps each refusal's aim (planned prediction and screening plays), and none for a run recorded without one", () => {
    const aim = { predicted: 0.4812, screening: { successes: 4, trials: 4 } };
    const groups = rejectedGroups([{ ...rejections[3]!, aim }, { ...rejections[3]!, generation: 3 }], nodes);
    assert.deepEqual(groups[0]!.refusals, [{ generation: 2, reason: 'oracle_failed: …', aim }, { generation: 3, reason: 'oracle_failed: …' }]);
  });
});
