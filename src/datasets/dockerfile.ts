/**
 * The Dockerfile of an exported Harbor task, and a reader for it. What we write is a small, fixed subset (FROM,
 * WORKDIR, ENV, COPY of the workspace, RUN in exec form) marked on its first line, so an import can map it back to
 * the sandbox exactly; a foreign Dockerfile is only kept as a build-context reference.
 */
export const dockerfileMarker = '# coevolve-harbor-export v1';

export interface DockerfileSandbox {
  image: string;
  workdir: string;
  env: Record<string, string>;
  /** Copy environment/workspace/ into the workdir. */
  copyWorkspace: boolean;
  setup: string[];
}

export function renderDockerfile(s: DockerfileSandbox, envId: string): string {
  const lines = [
    dockerfileMarker,
    `# Environment ${envId}: the base image, the workspace files and the setup commands of its sandbox.`,
    `FROM ${s.image}`,
    `WORKDIR ${s.workdir}`,
  ];
  for (const [k, v] of Object.entries(s.env).sort(([a], [b]) => a.localeCompare(b))) lines.push(`ENV ${k}=${JSON.stringify(v)}`);
  if (s.copyWorkspace) lines.push(`COPY workspace/ ${s.workdir.replace(/\/?$/, '/')}`);
  // Exec form keeps multi-line commands exact without needing BuildKit heredocs.
  for (const cmd of s.setup) lines.push(`RUN ${JSON.stringify(['/bin/sh', '-c', cmd])}`);
  return `${lines.join('\n')}\n`;
}

export type DockerfileRead =
  | { kind: 'coevolve'; sandbox: DockerfileSandbox }
  | { kind: 'foreign'; from?: string; workdir?: string; instructions: string[] };

/** Joins continuation lines and drops comments, as the Docker parser does. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (cur === '' && /^\s*#/.test(line)) continue;
    if (line.endsWith('\\')) {
      cur += `${line.slice(0, -1)}\n`;
      continue;
    }
    cur += line;
    if (cur.trim()) out.push(cur.trim());
    cur = '';
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

export function readDockerfile(text: string): DockerfileRead {
  const lines = logicalLines(text);
  if (text.startsWith(dockerfileMarker)) {
    const sandbox: DockerfileSandbox = { image: '', workdir: '/workspace', env: {}, copyWorkspace: false, setup: [] };
    let ok = true;
    for (const line of lines) {
      const [, op = '', rest = ''] = /^(\S+)\s*([\s\S]*)$/.exec(line) ?? [];
      try {
        switch (op.toUpperCase()) {
          case 'FROM': sandbox.image = rest; break;
          case 'WORKDIR': sandbox.workdir = rest; break;
          case 'ENV': {
            const eq = rest.indexOf('=');
            sandbox.env[rest.slice(0, eq)] = JSON.parse(rest.slice(eq + 1)) as string;
            break;
          }
          case 'COPY': sandbox.copyWorkspace = true; break;
          case 'RUN': {
            const argv = JSON.parse(rest) as string[];
            sandbox.setup.push(argv[2] ?? '');
            break;
          }
          default: ok = false;
        }
      } catch {
        ok = false;
      }
    }
    // A marked file edited by hand beyond our subset is treated as foreign rather than half-understood.
    if (ok && sandbox.image) return { kind: 'coevolve', sandbox };
  }
  let from: string | undefined;
  let workdir: string | undefined;
  const instructions: string[] = [];
  for (const line of lines) {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(line);
    if (!m) continue;
    const op = (m[1] ?? '').toUpperCase();
    const rest = (m[2] ?? '').trim();
    if (op === 'FROM') from = rest.split(/\s+/)[0];
    else if (op === 'WORKDIR') workdir = rest;
    instructions.push(line);
  }
  const read: DockerfileRead = { kind: 'foreign', instructions };
  if (from) read.from = from;
  if (workdir) read.workdir = workdir;
  return read;
}
