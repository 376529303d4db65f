import assert from 'node:assert/strict';
import { childEvent } from '../../../src/core/evolution/childEvents.js';
import type { ChildOutcome } from '../../../src/core/evolution/children.js';
import { checkRunEvent } from '../../../src/store/records.js';

describe('child outcome events', () => {
  const screening = { successes: 2, trials: 4 };
  const repair: ChildOutcome = { kind: 'pair', id: 'e1+u1', parent: 'e1', operator: 'repair', accepted: true, predicted: 0.512345, pairing: { envId: 'e1', userId: 'u1', screening, pairId: 'p0042' } };

  it('records an admitted pairing in the next generation under its pair, a refused one in this generation with its reason', () => {
    assert.deepEqual(childEvent(repair, 3), { type: 'pair.added', pairId: 'p0042', envId: 'e1', userId: 'u1', parent: 'e1', operator: 'repair', predicted: 0.5123, screening, generation: 4 });
    const refused = childEvent({ ...repair, accepted: false, reason: 'screened_out', detail: '4/4 screening plays', pairing: { envId: 'e1', userId: 'u1', screening: { successes: 4, trials: 4 } } }, 3);
    assert.deepEqual(refused, { type: 'pair.rejected', envId: 'e1', userId: 'u1', parent: 'e1', operator: 'repair', predicted: 0.5123, screening: { successes: 4, trials: 4 }, reason: 'screened_out: 4/4 screening plays', generation: 3 });
  });

  it("names the move that made a pairing (a move whose result the archive held) and the environment it was applied to", () => {
    const made = childEvent({ ...repair, pairing: { ...repair.pairing!, envId: 'e2', madeBy: { parent: 'e1', operator: 'harder:horizon' } } }, 0);
    assert.equal(made.type, 'pair.added');
    assert.deepEqual(made.type === 'pair.added' && [made.envId, made.parent, made.operator], ['e2', 'e1', 'harder:horizon']);
  });

  it('keeps environment and user children as spec.added / child.rejected with their prediction, readable by the run reader', () => {
    const env: ChildOutcome = { kind: 'environment', id: 'e3', parent: 'e1', operator: 'harder:feedback', accepted: true, predicted: 0.47, validation: { oracleReward: 1, emptyReward: 0, screening } };
    const events = [childEvent(env, 1), childEvent({ ...env, accepted: false, reason: 'oracle_failed', detail: 'exit 1' }, 1), childEvent(repair, 1)];
    assert.deepEqual(events.map((e) => [e.type, (e as { generation: number }).generation]), [['spec.added', 2], ['child.rejected', 1], ['pair.added', 2]]);
    events.forEach((e, i) => assert.ok('event' in checkRunEvent({ seq: i + 1, at: '2026-12-06T00:00:00.000Z', ...e }), `${e.type} is a valid event`));
    // A pairing event whose ids could be paths is refused by the reader.
    assert.ok('problem' in checkRunEvent({ seq: 9, at: '2026-12-06T00:00:00.000Z', ...childEvent({ ...repair, pairing: { ...repair.pairing!, envId: '../../etc' } }, 1) }));
  });
});
