import { pack } from 'tar-stream';
import type { Pack } from 'tar-stream';
import { normalize } from 'node:path/posix';
import type { SandboxFile } from '../../core/spec/environment.js';
import { parseMode } from '../local/workspaceDir.js';

/** The uid/gid agent commands run as; the workspace and its files belong to it so the agent can edit them. */
export const agentUid = 65534;

/**
 * A tar stream of files for putArchive, relative to the extraction folder, owned by the agent user and with the
 * spec's modes. Parent folders get their own entries so they are owned by the agent too.
 */
export function tarOfFiles(files: SandboxFile[]): Pack {
  const tar = pack();
  const dirs = new Set<string>();
  const mtime = new Date();
  const owner = { uid: agentUid, gid: agentUid, uname: 'nobody', gname: 'nogroup' };
  tar.entry({ name: './', type: 'directory', mode: 0o755, mtime, ...owner });
  for (const file of files) {
    const name = normalize(file.path).replace(/^\.\//, '');
    if (name.startsWith('../') || name.startsWith('/')) throw new Error(`file path "${file.path}" leaves the workspace; use a path relative to it`);
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!dirs.has(dir)) {
        dirs.add(dir);
        tar.entry({ name: `${dir}/`, type: 'directory', mode: 0o755, mtime, ...owner });
      }
    }
    tar.entry({ name, mode: parseMode(file.mode), mtime, ...owner }, Buffer.from(file.content, 'utf8'));
  }
  tar.finalize();
  return tar;
}
