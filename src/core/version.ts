/** Replaced at build time by esbuild's `define`; the fallback serves tests run from source. */
declare const __COEVOLVE_VERSION__: string | undefined;
export const toolVersion: string = typeof __COEVOLVE_VERSION__ === 'string' ? __COEVOLVE_VERSION__ : '0.0.0-dev';
