import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { fixesFor, type TextEdit0 } from '../../../src/extension/authoring/quickFixes.js';
import { environmentScaffold, specIdFrom, userScaffold } from '../../../src/extension/authoring/scaffolds.js';
import { specCompletions } from '../../../src/extension/authoring/specCompletion.js';
import { specHover } from '../../../src/extension/authoring/specHover.js';

const head = 'apiVersion: coevolve/v1\nkind: Environment\n';

/** Applies 0-based edits (non-overlapping) to a text. */
function apply(text: string, edits: TextEdit0[]): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }): number =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  let out = text;
  for (const e of [...edits].sort((a, b) => offset(b.start) - offset(a.start))) {
    out = out.slice(0, offset(e.start)) + e.newText + out.slice(offset(e.end));
  }
  return out;
}

describe('authoring: completion from the schema', () => {
  it('offers the keys valid at the cursor, minus those present, with ranges and defaults as detail', () => {
    const text = `${head}sandbox:\n  limits:\n    memoryMb: 128\n    \n`;
    const items = specCompletions('a.env.yaml', text, 5, 4);
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes('pids'));
    assert.ok(!labels.includes('memoryMb'), 'a key already present is not offered again');
    assert.ok(!labels.includes('image'), 'keys of the parent mapping are not offered');
    const pids = items.find((i) => i.label === 'pids')!;
    assert.equal(pids.detail, 'an integer between 8 and 4096 · default 64');
    assert.match(pids.documentation ?? '', /processes/);
    assert.equal(pids.insertText, 'pids: ');
  });

  it('puts required top-level keys first and inserts a skeleton for mappings', () => {
    const items = specCompletions('a.env.yaml', `${head}id: x\n`, 3, 0);
    const firstOptional = items.findIndex((i) => !i.required);
    assert.ok(items.slice(0, firstOptional).every((i) => i.required));
    assert.deepEqual(items.filter((i) => i.required).map((i) => i.label).sort(), ['instruction', 'oracle', 'title', 'user', 'verifier']);
    assert.equal(items.find((i) => i.label === 'oracle')!.insertText, 'oracle:\n  script: |\n    TODO');
  });

  it('follows discriminated unions to the chosen option', () => {
    const text = 'apiVersion: coevolve/v1\nkind: Run\nroles:\n  agent:\n    kind: llm\n    \n';
    assert.deepEqual(specCompletions('r.run.yaml', text, 5, 4).map((i) => i.label), ['endpoint', 'model', 'temperature', 'topP', 'maxTokens', 'stop', 'extraBody', 'contextWindow', 'sendReasoning', 'reasoningField', 'toolCallFormat', 'tokenData']);
  });

  it('offers enum values after "key: " and replaces the value typed so far', () => {
    const text = 'apiVersion: coevolve/v1\nkind: User\npersona:\n  expertise: nov # who\n';
    const items = specCompletions('u.user.yaml', text, 3, 16);
    assert.deepEqual(items.map((i) => i.label), ['novice', 'intermediate', 'expert']);
    assert.equal(items[0]!.start, 13);
    assert.equal(items[0]!.end, 16);
  });

  it('offers the built-in knob names with their ranges under knobs', () => {
    const items = specCompletions('a.env.yaml', `${head}knobs:\n  horizon: 2\n  \n`, 4, 2);
    assert.deepEqual(items.map((i) => i.label), ['hiddenState', 'feedback', 'distractors', 'strictness']);
    assert.match(items[0]!.detail, /^0\.\.3 in built-in families/);
  });

  it('offers nothing inside a script', () => {
    assert.deepEqual(specCompletions('a.env.yaml', `${head}verifier:\n  script: |\n    ech\n`, 4, 7), []);
  });
});

describe('authoring: hover from the zod descriptions', () => {
  it('shows the field path, description, what it accepts and its default', () => {
    const hover = specHover('a.env.yaml', `${head}sandbox:\n  limits:\n    memoryMb: 128\n`, 4, 6);
    assert.ok(hover);
    assert.match(hover.markdown, /\*\*sandbox\.limits\.memoryMb\*\*/);
    assert.match(hover.markdown, /Memory limit of the sandbox/);
    assert.match(hover.markdown, /an integer between 16 and 65536/);
    assert.match(hover.markdown, /default `256`/);
    assert.deepEqual([hover.start, hover.end], [4, 12]);
  });

  it('says when a field is required', () => {
    assert.match(specHover('a.env.yaml', `${head}title: T\n`, 2, 1)!.markdown, /required/);
  });
});

describe('authoring: quick fixes', () => {
  it('renames an unknown key to the closest valid key', () => {
    const text = `${head}sandbox:\n  limits:\n    memryMb: 128\n`;
    const problem = parseSpecText(text, 'a.env.yaml').problems.find((p) => p.message.startsWith('unknown key'))!;
    const fixes = fixesFor(problem, 'a.env.yaml', text);
    assert.equal(fixes[0]!.title, 'Change "memryMb" to "memoryMb"');
    assert.equal(fixes[0]!.preferred, true);
    assert.equal(apply(text, fixes[0]!.edits), `${head}sandbox:\n  limits:\n    memoryMb: 128\n`);
  });

  it('inserts a missing required field as a skeleton that clears the problem', () => {
    const scaffold = environmentScaffold('demo');
    const broken = scaffold.replace(/\noracle:\n {2}script: \|\n {4}wc[^\n]*\n/, '\n');
    assert.notEqual(broken, scaffold, 'the oracle section was removed');
    const problem = parseSpecText(broken, 'a.env.yaml').problems.find((p) => p.message.startsWith('missing required field "oracle"'));
    assert.ok(problem, 'the missing oracle is reported');
    const [fix] = fixesFor(problem, 'a.env.yaml', broken);
    assert.ok(fix);
    const fixed = apply(broken, fix.edits);
    assert.deepEqual(parseSpecText(fixed, 'a.env.yaml').problems.map((p) => p.message), []);
    assert.match(fixed, /\noracle:\n {2}script: \|\n {4}TODO\n/);
  });

  it('inserts a missing nested field inside its mapping, at the mapping indentation', () => {
    const text = `${head}user:\n  request: hi\n  facts:\n    - id: a\n      keywords: [x]\n  goal: g\n`;
    const problem = parseSpecText(text, 'a.env.yaml').problems.find((p) => p.message.startsWith('missing required field "text"'))!;
    const fixed = apply(text, fixesFor(problem, 'a.env.yaml', text)[0]!.edits);
    assert.match(fixed, /- id: a\n {6}keywords: \[x\]\n {6}text: TODO\n {2}goal: g/);
  });
});

describe('authoring: scaffolds', () => {
  it('New environment and New user write specs that validate clean', () => {
    assert.deepEqual(parseSpecText(environmentScaffold('my-task'), 'my-task.env.yaml').problems, []);
    assert.deepEqual(parseSpecText(userScaffold('sam'), 'sam.user.yaml').problems, []);
  });

  it('turns a file name into a valid id', () => {
    assert.equal(specIdFrom('My Task.env.yaml'), 'my-task');
    assert.equal(specIdFrom('---'), 'new-spec');
  });

  it('the example specs in environments/ get hover on every top-level key', () => {
    const folder = new URL('../../../environments/', import.meta.url);
    for (const name of readdirSync(folder).filter((n) => /\.(env|user|run)\.yaml$/.test(n))) {
      const text = readFileSync(new URL(name, folder), 'utf8');
      const keyLines = text.split('\n').map((l, i) => [l, i] as const).filter(([l]) => /^[a-z][A-Za-z]*:/.test(l));
      for (const [l, i] of keyLines) assert.ok(specHover(name, text, i, 1), `hover on "${l}" in ${name}`);
    }
  });
});

describe('authoring: completion in flow-style YAML', () => {
  it('offers the keys of a flow mapping as one-line insertions, and enum values of a flow sequence item', () => {
    const env = `${head}sandbox:\n  limits: { memoryMb: 128,  }\n`;
    const keys = specCompletions('a.env.yaml', env, 3, 27);
    const pids = keys.find((i) => i.label === 'pids');
    assert.ok(pids, `pids offered: ${keys.map((i) => i.label).join(', ')}`);
    assert.equal(pids.insertText, 'pids: ');
    assert.ok(!keys.some((i) => i.label === 'memoryMb'));
    const user = 'apiVersion: coevolve/v1\nkind: User\nid: u\npersona: { name: A }\nbehavior: { disclosure:  }\n';
    const values = specCompletions('a.user.yaml', user, 4, 24).map((i) => i.label);
    assert.ok(values.includes('on_request') && values.includes('upfront'), values.join(', '));
  });
});
