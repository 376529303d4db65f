// ViewData (and `coevolve view`) keep transcript indexes in the user's cache, ~/.cache/coevolve/transcripts, unless
// told otherwise (src/viewdata/transcriptStore.ts). A test never writes there: each gives the data layer a folder of
// its own, removed when the test process exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new empty folder for transcript indexes, outside every folder of runs (a registry would list it as a run). */
export function ownTranscriptCache(): string {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-test-transcripts-'));
  made.push(dir);
  return dir;
}
