import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import type { Problem } from '../../../src/core/spec/problems.js';
import { readSpecFile } from '../../../src/specs/workspace.js';

const dir = join(__dirname, '../../fixtures/specs/malformed');
const validMinimal = readFileSync(join(__dirname, '../../fixtures/specs/valid/minimal.env.yaml'), 'utf8');

/** [line, column, endLine, endColumn, path, a piece of the message] — 1-based, end exclusive. */
type Expected = [number, number, number, number, (string | number)[], string | RegExp];

// Every malformed fixture with the exact range each problem must cover. Ranges were checked by eye against the
// fixture text: the value for a wrong value, the key for an unknown key, the parent key (or the first key of a
// mapping without one) for a missing field, the token the YAML parser stopped at for syntax errors.
const cases: Record<string, Expected[]> = {
  'syntax-unclosed-flow.env.yaml': [[21, 18, 21, 23, [], 'opened with "[" is not closed']],
  'quoted-value-colon.env.yaml': [[4, 8, 4, 21, [], 'quote the value if the colon is part of the text']],
  'tab-indent.env.yaml': [[8, 1, 8, 2, [], 'tab character used for indentation']],
  'duplicate-keys.env.yaml': [[5, 1, 5, 6, [], 'duplicate key "title": each key may appear only once in a mapping (first at line 4)']],
  'multiple-docs.env.yaml': [[23, 1, 23, 4, [], 'put one spec per file']],
  'unresolved-alias.env.yaml': [[15, 11, 15, 20, [], 'alias "*solution" refers to no anchor']],
  'empty.env.yaml': [[1, 1, 1, 1, [], 'file is empty']],
  'comments-only.env.yaml': [[1, 1, 1, 1, [], 'file is empty']],
  'top-level-list.env.yaml': [[1, 1, 2, 20, [], 'expected a mapping of fields']],
  'no-kind.yaml': [[1, 1, 1, 11, ['kind'], 'cannot tell what kind of spec this is']],
  'kind-mismatch.env.yaml': [[2, 7, 2, 11, ['kind'], 'named *.env.yaml but says kind: User']],
  'wrong-api-version.env.yaml': [[1, 13, 1, 24, ['apiVersion'], 'unsupported apiVersion "coevolve/v2"; this version of coevolve reads "coevolve/v1"']],
  'wrong-type-number.env.yaml': [[8, 15, 8, 19, ['sandbox', 'limits', 'memoryMb'], 'expected an integer between 16 and 65536, got "lots"']],
  'wrong-type-text.env.yaml': [[4, 8, 4, 10, ['title'], 'expected text, got 42; put it in quotes']],
  'wrong-type-list.env.yaml': [[10, 5, 11, 19, ['sandbox', 'files'], 'expected a list (lines starting with "- "), got a mapping']],
  'empty-value.env.yaml': [[14, 1, 14, 7, ['oracle'], 'expected a mapping (indented "key: value" lines), got an empty value']],
  'unknown-key-typo.env.yaml': [[14, 3, 14, 9, ['verifier', 'timout'], 'unknown key "timout" in verifier; did you mean "timeoutSec"?']],
  'unknown-key-top.env.yaml': [
    [1, 1, 1, 11, ['instruction'], 'missing required field "instruction"'],
    [5, 1, 5, 13, ['instructions'], 'unknown key "instructions" at the top level; did you mean "instruction"?'],
  ],
  'missing-required.env.yaml': [[1, 1, 1, 11, ['verifier'], 'missing required field "verifier" — how the outcome is checked']],
  'missing-nested.env.yaml': [[16, 1, 16, 5, ['user', 'goal'], 'missing required field "goal" in user']],
  'missing-in-list-item.env.yaml': [[10, 7, 10, 11, ['sandbox', 'files', 0, 'content'], 'missing required field "content" in sandbox.files[0]']],
  'out-of-range.env.yaml': [
    [9, 11, 9, 17, ['sandbox', 'limits', 'pids'], 'expected an integer between 8 and 4096, got 100000'],
    [10, 11, 10, 12, ['sandbox', 'limits', 'cpus'], 'expected a number between 0.1 and 64, got 0'],
  ],
  'path-traversal.env.yaml': [[10, 13, 10, 34, ['sandbox', 'files', 0, 'path'], 'path must stay inside the workspace (no "..")']],
  'absolute-path.env.yaml': [[10, 13, 10, 24, ['sandbox', 'files', 0, 'path'], 'path must be relative']],
  'duplicate-fact-id.env.yaml': [[21, 11, 21, 15, ['user', 'facts', 1, 'id'], 'duplicate fact id "file"']],
  'dangling-fact.env.yaml': [[21, 25, 21, 30, ['user', 'requiredFacts', 1], 'required fact "owner" is not defined in user.facts']],
  // Cross-field rules run even when another field is wrong, so both faults show in one pass.
  'two-faults-one-pass.env.yaml': [
    [8, 15, 8, 19, ['sandbox', 'limits', 'memoryMb'], 'expected an integer between 16 and 65536, got "lots"'],
    [21, 25, 21, 30, ['user', 'requiredFacts', 1], 'required fact "owner" is not defined in user.facts'],
  ],
  'bad-record-key.env.yaml': [[8, 5, 8, 10, ['sandbox', 'env', '2FAST'], 'invalid key "2FAST": environment variable names']],
  'bad-enum.user.yaml': [
    [7, 15, 7, 25, ['behavior', 'disclosure'], 'got "on-request"; did you mean "on_request"?'],
    [8, 13, 8, 14, ['behavior', 'patience'], 'expected an integer between 1 and 100, got 0'],
  ],
  'band-inverted.run.yaml': [
    [7, 8, 7, 11, ['band', 'low'], 'band.low must not exceed band.high'],
    [10, 33, 10, 38, ['roles', 'agent', 'endpoint'], 'endpoint "local", which is not defined in endpoints'],
  ],
  'archive-cap-below-floor.run.yaml': [[7, 15, 7, 17, ['population', 'maxArchive'], 'population.maxArchive must not be below population.minArchive']],
  'children-max-below-base.run.yaml': [[7, 29, 7, 30, ['population', 'maxChildrenPerGeneration'], 'population.maxChildrenPerGeneration must not be below population.childrenPerGeneration']],
  'unknown-role-kind.run.yaml': [[7, 18, 7, 24, ['roles', 'judge', 'kind'], 'expected one of "builtin", "llm", got "bultin"; did you mean "builtin"?']],
};

function assertProblems(problems: Problem[], expected: Expected[], file: string): void {
  const got = problems.map((p) => [p.line, p.column, p.endLine, p.endColumn, p.path]);
  assert.deepEqual(got, expected.map((e) => e.slice(0, 5)), `ranges of ${file}:\n${problems.map((p) => `  ${p.line}:${p.column}-${p.endLine}:${p.endColumn} ${p.message}`).join('\n')}`);
  problems.forEach((p, i) => {
    const want = expected[i]![5];
    if (typeof want === 'string') assert.ok(p.message.includes(want), `${file}: message "${p.message}" lacks "${want}"`);
    else assert.match(p.message, want);
    assert.equal(p.severity, 'error');
    assert.equal(p.file, file);
  });
}

describe('spec parsing: malformed files', () => {
  it('has a case for every fixture, and at least 20 of them', () => {
    assert.deepEqual(readdirSync(dir).sort(), Object.keys(cases).sort());
    assert.ok(Object.keys(cases).length >= 20);
  });

  for (const [name, expected] of Object.entries(cases)) {
    it(`${name}: reports exactly the offending node`, () => {
      const parsed = parseSpecText(readFileSync(join(dir, name), 'utf8'), name);
      assertProblems(parsed.problems, expected, name);
      assert.equal(parsed.spec, undefined, 'a spec with errors has no typed value');
    });
  }

  it('the valid base of these fixtures parses clean, with defaults applied', () => {
    const parsed = parseSpecText(validMinimal, 'minimal.env.yaml');
    assert.deepEqual(parsed.problems, []);
    assert.equal(parsed.kind, 'Environment');
    const spec = parsed.spec as { sandbox: { limits: { memoryMb: number; pids: number } }; family: string };
    assert.equal(spec.sandbox.limits.memoryMb, 128);
    assert.equal(spec.sandbox.limits.pids, 64);
    assert.equal(spec.family, 'custom');
  });

  it('binary junk: one problem at the first control character', () => {
    const junk = `apiVersion: coevolve/v1\nkind: Env${String.fromCharCode(0, 159, 1, 2)}ironment\n`;
    assertProblems(parseSpecText(junk, 'junk.env.yaml').problems, [[2, 10, 2, 11, [], 'does not look like a text file: it contains a control character (U+0000)']], 'junk.env.yaml');
  });

  it('bytes that are not UTF-8, read from disk: one problem at the first bad byte', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'coevolve-spec-'));
    try {
      const file = join(tmp, 'latin1.user.yaml');
      writeFileSync(file, Buffer.concat([Buffer.from('apiVersion: coevolve/v1\nkind: User\nid: caf'), Buffer.from([0xe9, 0xff]), Buffer.from('\n')]));
      const parsed = await readSpecFile(file);
      assertProblems(parsed.problems, [[3, 8, 3, 9, [], 'bytes that are not valid UTF-8']], file);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a 5 MB file: refused with its size, before parsing', async () => {
    const line = '  - path: data/file.txt\n    content: some filler text that makes the file big\n';
    const big = `apiVersion: coevolve/v1\nkind: Environment\nfiles:\n${line.repeat(Math.ceil((5 * 1024 * 1024) / line.length))}`;
    assert.ok(big.length >= 5 * 1024 * 1024);
    assertProblems(parseSpecText(big, 'big.env.yaml').problems, [[1, 1, 1, 1, [], /^file is 5(\.\d)? MiB, larger than the 4 MiB limit/]], 'big.env.yaml');

    const tmp = mkdtempSync(join(tmpdir(), 'coevolve-spec-'));
    try {
      const file = join(tmp, 'big.env.yaml');
      writeFileSync(file, big);
      assertProblems((await readSpecFile(file)).problems, [[1, 1, 1, 1, [], 'larger than the 4 MiB limit']], file);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('CRLF line ends give the same ranges', () => {
    for (const name of ['wrong-type-number.env.yaml', 'wrong-type-list.env.yaml', 'missing-nested.env.yaml', 'tab-indent.env.yaml']) {
      const crlf = readFileSync(join(dir, name), 'utf8').replace(/\n/g, '\r\n');
      assertProblems(parseSpecText(crlf, name).problems, cases[name]!, name);
    }
  });

  it('never throws, whatever the text', function () {
    this.timeout(20_000);
    const texts = [
      '', '\n', '---', '...', '- - -', '{', '}', '[', 'a: &x\n  b: *x\n', ':', '? ', '"', "'", '|', '>', '!!binary x', '&a *a',
      'kind: Environment\n'.repeat(3), `kind: ${'['.repeat(200)}`, 'apiVersion: coevolve/v1\nkind: Run\nroles: 3\n',
      'apiVersion: coevolve/v1\nkind: Run\nname: x\nroles:\n  agent: []\n', '\uFEFFkind: User\n', 'a:\n- 1\n -2\n',
      'lol: &a [x, x, x]\nl2: &b [*a, *a, *a]\nl3: &c [*b, *b, *b]\nl4: [*c, *c, *c]\n',
    ];
    for (const t of texts) {
      for (const file of ['x.env.yaml', 'x.user.yaml', 'x.run.yaml', 'x.agent.yaml', 'x.yaml']) {
        const parsed = parseSpecText(t, file);
        assert.ok(Array.isArray(parsed.problems));
        for (const p of parsed.problems) {
          assert.ok(p.line >= 1 && p.column >= 1 && p.message.length > 0, `${file} ${JSON.stringify(t)}: ${JSON.stringify(p)}`);
          assert.ok(p.endLine > p.line || (p.endLine === p.line && p.endColumn >= p.column), `end before start: ${JSON.stringify(p)}`);
        }
      }
    }
  });
});
