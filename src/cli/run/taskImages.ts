import { existsSync } from 'node:fs';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import type { ImportResult } from '../../datasets/importReport.js';
import { planTaskImage } from '../../sandbox/build/buildTaskImage.js';
import { resolveBuildSources } from '../../sandbox/build/taskBuildSource.js';

/** The task folder an imported spec was made from (`provenance.source` = "harbor:<dir>" or "terminal-bench-1:<dir>"). */
export function taskFolderOfSpec(provenanceSource: string | undefined): string | undefined {
  const m = /^(?:harbor|terminal-bench-1):(.+)$/.exec(provenanceSource ?? '');
  return m && existsSync(m[1]!) ? m[1] : undefined;
}

/**
 * Imported tasks get the content-addressed tag of their own Dockerfile as `sandbox.image`, so a run, `check` or
 * `eval` uses exactly the image `coevolve sandbox build <spec>` makes (and says so when it is missing). Tasks that
 * name a prebuilt `docker_image`, or whose context cannot be read, keep what the importer gave.
 */
export async function assignTaskImages(result: ImportResult<EnvironmentSpec>, cwd: string, bases: Record<string, string> = {}): Promise<void> {
  for (const item of result.imported) {
    const spec = item.spec;
    if (!spec.sandbox.image.startsWith('harbor/')) continue;
    const folder = taskFolderOfSpec(spec.provenance.source);
    if (!folder) continue;
    let tag: string;
    try {
      const [source] = resolveBuildSources(folder, cwd, { bases });
      if (!source) continue;
      tag = (await planTaskImage(source)).tag;
    } catch (err) {
      item.unmapped.push(`environment: the build context cannot be read (${err instanceof Error ? err.message : String(err)}); sandbox.image stays ${spec.sandbox.image}`);
      continue;
    }
    const old = spec.sandbox.image;
    spec.sandbox.image = tag;
    const doc = item.document as { sandbox?: { image?: string } };
    doc.sandbox = { ...doc.sandbox, image: tag };
    const note = `environment/Dockerfile: built by \`coevolve sandbox build <this spec>\` (or the task folder) as ${tag}, the content address of its build context${Object.keys(bases).length ? ` with ${Object.entries(bases).map(([f, t]) => `FROM ${f} as ${t}`).join(', ')}` : ''}`;
    item.unmapped = item.unmapped.map((u) => (u.startsWith('environment/Dockerfile: kept as the build context reference') ? note : u));
    item.header = item.header.map((h) => (h.startsWith('Build it with:') ? `Build it with: coevolve sandbox build ${folder}` : h).split(old).join(tag));
  }
}
