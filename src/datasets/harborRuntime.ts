import { createHash } from 'node:crypto';
import type { SandboxFileInput } from './harborMapping.js';

/**
 * Harbor's oracle convention for an imported task: the task's `solution/` folder is at `/solution` and
 * `solution/solve.sh` runs from the workdir, by its own interpreter line (`#!/bin/bash` tasks use bash). The files go
 * in through quoted here-documents, so the script is one self-contained text the spec can carry. When `/solution`
 * cannot be made (a read-only root, an agent that is not root), they go to a fresh temp folder instead.
 */
export function harborOracleScript(files: SandboxFileInput[]): string {
  const solve = files.find((f) => f.path === 'solve.sh');
  const lines = [
    '#!/bin/sh',
    "# Harbor's oracle, as Harbor runs it: the task's solution/ at /solution, solve.sh run from the workdir.",
    '# (Written by the Coevolve import from the files of solution/.)',
    'S=/solution',
    'if ! mkdir -p "$S" 2>/dev/null || ! [ -w "$S" ]; then S=$(mktemp -d); fi',
  ];
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const delimiter = `COEVOLVE_SOLUTION_${createHash('sha256').update(f.content).digest('hex').slice(0, 12).toUpperCase()}`;
    const dir = f.path.includes('/') ? f.path.slice(0, f.path.lastIndexOf('/')) : '';
    if (dir) lines.push(`mkdir -p "$S/${dir}"`);
    lines.push(`cat > "$S/${f.path}" <<'${delimiter}'`, f.content.endsWith('\n') ? f.content.slice(0, -1) : f.content, delimiter);
    lines.push(`chmod ${f.mode ?? (f.path.endsWith('.sh') ? '755' : '644')} "$S/${f.path}"`);
  }
  const interpreter = /^#!\s*(\S+)/.exec(solve?.content ?? '')?.[1];
  lines.push(interpreter && interpreter !== '/bin/sh' ? `exec ${interpreter.endsWith('/env') ? /^#!\s*\S+\s+(\S+)/.exec(solve!.content)?.[1] ?? 'sh' : interpreter} "$S/solve.sh"` : 'exec sh "$S/solve.sh"');
  return `${lines.join('\n')}\n`;
}
