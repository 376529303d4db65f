// Which workspace files the editor treats as specs. Live diagnostics, the Validate Workspace Specs command and the
// language features all look for the same files, so the patterns are defined here once.

/** Spec files by suffix (`*.env.yaml`, `.yml` too), the kinds core's `kindFromFileName` knows. */
export const specFileGlob = '**/*.{env,user,run,agent}.{yaml,yml}';

/** Folders a workspace search for specs skips: installed packages, git's store and build output. */
export const excludedFolders = '**/{node_modules,.git,dist,out}/**';
