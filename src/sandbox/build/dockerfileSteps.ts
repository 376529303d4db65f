/**
 * The instructions of a Dockerfile with the line each starts on, as the classic builder numbers its steps, so a
 * build failure ("Step 4/7") can be reported as `Dockerfile:12`. Also the external images its FROM lines need.
 */
export interface DockerfileStep {
  /** 1-based line of the instruction's first physical line. */
  line: number;
  /** Upper-cased instruction keyword (FROM, RUN, ...). */
  op: string;
  /** The instruction as the builder sees it (continuations joined). */
  text: string;
}

/** Joins `\` continuations, drops comments and blank lines; parser directives are comments too. */
export function dockerfileSteps(text: string): DockerfileStep[] {
  const out: DockerfileStep[] = [];
  const lines = text.split(/\r?\n/);
  let cur = '';
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    // Comment lines inside a continuation are dropped by the builder too.
    if (trimmed.startsWith('#')) continue;
    if (cur === '' && trimmed === '') continue;
    if (cur === '') start = i + 1;
    if (/\\\s*$/.test(raw)) {
      cur += `${raw.replace(/\\\s*$/, '')}\n`;
      continue;
    }
    cur += raw;
    push();
  }
  push();
  return out;

  function push(): void {
    const joined = cur.trim();
    cur = '';
    if (!joined) return;
    const m = /^(\S+)\s*([\s\S]*)$/.exec(joined);
    if (!m) return;
    out.push({ line: start, op: m[1]!.toUpperCase(), text: joined });
  }
}

export interface FromImage {
  /** The image reference after ARG substitution. */
  image: string;
  line: number;
  /** The raw reference as written (before substitution). */
  written: string;
}

/**
 * The external images the FROM lines refer to: `scratch` and earlier stage names are not images. Global ARGs
 * (before the first FROM) and `--build-arg` values are substituted as the builder does (`$X`, `${X}`, `${X:-d}`).
 */
export function externalFromImages(steps: DockerfileStep[], buildArgs: Record<string, string> = {}): FromImage[] {
  const args: Record<string, string> = {};
  const stages = new Set<string>();
  const out: FromImage[] = [];
  let seenFrom = false;
  for (const s of steps) {
    if (s.op === 'ARG' && !seenFrom) {
      const [name = '', def] = s.text.slice(3).trim().split('=', 2) as [string, string | undefined];
      args[name] = buildArgs[name] ?? unquote(def ?? '');
      continue;
    }
    if (s.op !== 'FROM') continue;
    seenFrom = true;
    const parts = s.text.slice(4).trim().split(/\s+/).filter((p) => !p.startsWith('--platform'));
    const written = parts[0] ?? '';
    const image = substitute(written, args);
    const earlierStage = stages.has(image.toLowerCase());
    if (parts[1]?.toLowerCase() === 'as' && parts[2]) stages.add(parts[2].toLowerCase());
    if (image.toLowerCase() === 'scratch' || earlierStage) continue;
    out.push({ image, line: s.line, written });
  }
  return out;
}

function unquote(v: string): string {
  const t = v.trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}

function substitute(ref: string, args: Record<string, string>): string {
  return ref.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, def: string | undefined, b: string | undefined) => {
    const name = a ?? b ?? '';
    const v = args[name];
    return v !== undefined && v !== '' ? v : (def ?? '');
  });
}

/**
 * The Dockerfile with FROM images replaced by local bases (`ubuntu:24.04` → `coevolve/debian:bookworm`), for tasks
 * whose published base cannot be pulled here. Only the image of a FROM line changes; every other byte stays.
 */
export function substituteBases(text: string, bases: Record<string, string>, buildArgs: Record<string, string> = {}): { text: string; replaced: { from: string; to: string; line: number }[] } {
  if (Object.keys(bases).length === 0) return { text, replaced: [] };
  const steps = dockerfileSteps(text);
  const froms = externalFromImages(steps, buildArgs);
  const lines = text.split('\n');
  const replaced: { from: string; to: string; line: number }[] = [];
  for (const f of froms) {
    const to = bases[f.image] ?? bases[f.written];
    if (!to) continue;
    const idx = f.line - 1;
    const line = lines[idx] ?? '';
    const at = line.indexOf(f.written);
    if (at < 0) continue;
    lines[idx] = `${line.slice(0, at)}${to}${line.slice(at + f.written.length)}`;
    replaced.push({ from: f.image, to, line: f.line });
  }
  return { text: lines.join('\n'), replaced };
}
