/**
 * The openai SDK, evaluated on first use (~340 KB of modules): a command or an editor session that never calls a
 * model endpoint should not evaluate it at start. A require() in a function is bundled like an import but runs when
 * called (esbuild keeps CommonJS modules behind a lazy wrapper); types come from a type-only import.
 */
export const openaiSdk = (): typeof import('openai') => require('openai') as typeof import('openai');
