// The reward-hack audit of issue 11 (see hackAudit.ts). Prints figures; asserts nothing (the integration test
// test/integration/audit/hackAudit.test.ts asserts the zeros).
//   node --import=tsx bench/audit/run.ts [--skip-docker] [--all-levels] [--imported]
// --imported adds the imported real-task fixtures on docker (root agents), every hack one rollout each.
import { loadavg } from 'node:os';
import { BwrapBackend } from '../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../src/sandbox/docker/dockerBackend.js';
import { startModelServer } from '../../test/support/modelServer.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { auditTable, runHackAudit, runImportedAudit } from './hackAudit.js';
import { importedFixtureSpecs } from './importedFixtures.js';
import type { AuditCell } from './hackAudit.js';

const labels = { 'coevolve.bench': 'audit' };
const backends = [
  ...(process.argv.includes('--skip-docker') ? [] : [{ name: 'docker', make: () => new DockerBackend({ labels }) }]),
  { name: 'bwrap', make: () => new BwrapBackend() },
];
const levels = process.argv.includes('--all-levels') ? (max: number) => Array.from({ length: max }, (_, i) => i + 1) : (max: number) => [1, max];

async function main(): Promise<void> {
  const server = await startModelServer();
  const started = performance.now();
  try {
    const cells: AuditCell[] = await runHackAudit({ server, backends, levels, labels, log: (l) => process.stderr.write(`${l}\n`) });
    if (process.argv.includes('--imported')) cells.push(await importedCell(server));
    console.log(auditTable(cells));
    for (const c of cells) for (const line of [...c.aboveEmpty, ...c.infraErrors]) console.log(`  ${c.backend} ${c.source}: ${line}`);
    console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${((performance.now() - started) / 1000).toFixed(0)} s`);
    console.log(JSON.stringify({ audit: cells.map(({ aboveEmpty, infraErrors, ...c }) => ({ ...c, aboveEmpty: aboveEmpty.length, infraErrors: infraErrors.length })) }));
  } finally {
    await server.close();
  }
}

async function importedCell(server: Awaited<ReturnType<typeof startModelServer>>): Promise<AuditCell> {
  const tmp = mkdtempSync(join(tmpdir(), 'coevolve-audit-imported-'));
  const backend = new DockerBackend({ labels });
  try {
    const { specs } = await importedFixtureSpecs(new Docker(), tmp, labels);
    return await runImportedAudit({ servers: [server], backend, backendName: 'docker', specs, labels, pickHacks: (h) => h, log: (l) => process.stderr.write(`${l}\n`) });
  } finally {
    await backend.dispose();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
