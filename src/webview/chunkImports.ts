// The chunks an app's script imports statically (the dashboard is a split build, scripts/build.mjs). A page names
// them as <link rel="modulepreload"> beside the script, so the browser fetches them with it instead of only after it
// has parsed the script (a round trip that cost 35–300 ms before the dashboard's first statement at load 25).
// Both hosts ask: the editor's webview HTML (with its nonce) and `coevolve view`'s pages.

/**
 * File names of the `./chunk-*.js` modules `source` (an esbuild ESM output) imports with an import statement:
 * `import{a}from"./chunk-X.js"`, `import "./chunk-X.js"`, minified or not. A dynamic `import("./chunk-X.js")` (a
 * chunk loaded when needed) is not one of them.
 */
export function staticChunkImports(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(/(?:\bfrom|\bimport)\s*(["'])\.\/(chunk-[A-Za-z0-9_-]+\.js)\1/g)) found.add(m[2] as string);
  return [...found];
}
