import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCliWatched } from '../../support/cli.js';

describe('coevolve run output on a real demo run, piped (not a terminal)', function () {
  let out: string;
  let result: { code: number; stdout: string; stderr: string };

  before(async function () {
    // The run takes ~1 min on a quiet machine and over 10 under load: it is held to its progress, not to a deadline.
    this.timeout(0);
    out = mkdtempSync(join(tmpdir(), 'coevolve-run-output-'));
    // The unsandboxed backend on purpose: it is the one that warns, and it needs nothing installed.
    result = await runCliWatched(['run', resolve('environments/demo.run.yaml'), '--out', out, '--backend', 'process', '--generations', '2'], { watchDir: out });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('finishes', () => assert.equal(result.code, 0, result.stderr));

  it('warns about the unsafe backend once for the run, not once per rollout', () => {
    const warnings = result.stderr.split('\n').filter((l) => /NOT a sandbox|unsandboxed "process" sandbox/.test(l));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(result.stderr, /warning: \d+ sandboxes of this run ran UNSANDBOXED \(process backend\)/);
  });

  it('prints progress lines for every generation, named as the run directory names them', () => {
    for (const g of [0, 1]) {
      assert.match(result.stderr, new RegExp(`^generation ${g} \\(${g + 1} of 2\\): playing \\d+ rollouts$`, 'm'));
      assert.match(result.stderr, new RegExp(`^generation ${g} \\(${g + 1} of 2\\): \\d+/\\d+ rollouts · success so far`, 'm'));
      assert.match(result.stderr, new RegExp(`^ {2}generation ${g}: success \\d+%`, 'm'));
    }
    assert.doesNotMatch(result.stderr, /gen \d\/\d|gen \d:/, 'no other numbering');
  });

  it('ends with the report, which fits a terminal, and the next step', () => {
    const tableLines = result.stdout.split('\n').filter((l) => l.startsWith('|'));
    // Three tables per generation (played, frontier, children), each a header, a rule and a row per generation; then
    // the aim by move over the run: a header, a rule and a row per move its screened children were made with.
    const byMove = tableLines.findIndex((l) => /^\| by move /.test(l));
    assert.equal(byMove, 3 * (2 + 2), 'the by-move table follows the three generation tables');
    const moves = tableLines.slice(byMove + 2);
    assert.ok(moves.length > 0 && moves.every((l) => /^\| (new pairing|(harder|easier):\w+(\+(harder|easier):\w+)*) +\| +\d+ \| +\d+(–\d+)? \| +\d+% → \d+% \[\d+–\d+\] \|$/.test(l)), moves.join('\n'));
    for (const l of tableLines) assert.ok([...l].length <= 140, `${[...l].length} columns: ${l}`);
    assert.doesNotMatch(tableLines[0] ?? '', /pass@1/);
    assert.match(result.stdout, /^run finished: .*\n {2}next: look at it in VS Code \(Coevolve: Open Run Dashboard\), or `coevolve report /m);
  });
});
