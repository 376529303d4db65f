import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { describeIssue } from './issueMessages.js';
import { SpecError } from './load.js';
import { problemAt, startOfFile, type Problem } from './problems.js';
import { SpecSourceMap } from './sourceMap.js';

/**
 * What a trainer hook may hand back (a JSON file at $COEVOLVE_HOOK_RESULT): the agent role's model from the next
 * generation on, typically the checkpoint it just trained, served under a new name or at a new address. Fields left
 * out keep their current value; a hook that writes nothing changes nothing.
 */
export const trainerHookResultSchema = z.strictObject({
  agent: z
    .strictObject({
      model: z.string().min(1).max(256).optional().describe('Model name the agent role uses from the next generation on.'),
      baseUrls: z.array(z.url()).min(1).max(64).optional().describe("Base URLs that serve it (default: the agent endpoint's)."),
    })
    .optional()
    .describe('The agent role (and the agent evolver, which shares its model).'),
});

export type TrainerHookResult = z.infer<typeof trainerHookResultSchema>;
export type AgentModelSwitch = NonNullable<TrainerHookResult['agent']>;

/** Largest result file read; a result is a few lines. */
const maxResultBytes = 64 * 1024;

/** Parses a hook's result file; throws a SpecError whose message says file:line:column and what is wrong. */
export function parseTrainerHookResult(text: string, file: string): TrainerHookResult {
  const fail = (problems: Problem[]): never => {
    throw new SpecError(file, problems);
  };
  if (text.length > maxResultBytes) fail([problemAt(file, startOfFile, 'error', `a trainer hook result is at most ${maxResultBytes} bytes, this one has ${text.length}`)]);
  if (text.trim() === '') return {};
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const map = new SpecSourceMap(doc, lineCounter, text);
  if (doc.errors.length > 0) {
    fail(doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return problemAt(file, { line: pos.line, column: pos.col, endLine: pos.line, endColumn: pos.col + 1 }, 'error', `not valid JSON: ${e.message.split('\n')[0]}`);
    }));
  }
  const input: unknown = doc.toJS({ maxAliasCount: 0 });
  const parsed = trainerHookResultSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  return fail(parsed.error.issues.flatMap((issue) =>
    describeIssue(issue, trainerHookResultSchema, input).map((m) => {
      const range = m.anchor === 'key' ? map.key(m.path) : m.anchor === 'missing' ? map.missing(m.path) : map.value(m.path);
      return problemAt(file, range, 'error', m.message, m.path);
    }),
  ));
}
