import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { staticChunkImports } from '../webview/chunkImports.js';

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.ttf': 'font/ttf', '.map': 'application/json', '.svg': 'image/svg+xml',
};

export interface Asset {
  body: Buffer;
  type: string;
}

/** Where the built webview bundles are: beside the CLI bundle (dist/webview), or dist/ of a source checkout. */
export function webviewAssetsDir(): string {
  const candidates = [join(__dirname, 'webview'), join(__dirname, '../../dist/webview'), join(process.cwd(), 'dist/webview')];
  const dir = candidates.find((d) => existsSync(join(d, 'rolloutViewer.js')));
  if (!dir) throw new Error(`the webview bundles are not built (looked in ${candidates.join(', ')}); run npm run build`);
  return dir;
}

/**
 * Every file of the webview bundle folder, read once into a table by name. The server answers /assets/<name> from
 * this table only, so no part of a URL ever becomes part of a file path.
 */
export function loadAssets(dir: string): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = types[extname(name)];
    if (type) out.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return out;
}

/** The chunks a page's script imports (each in the table), for the page to name as modulepreloads. */
export function scriptChunks(assets: ReadonlyMap<string, Asset>, script: string): string[] {
  const body = assets.get(script)?.body;
  return body ? staticChunkImports(body.toString('utf8')).filter((c) => assets.has(c)) : [];
}
