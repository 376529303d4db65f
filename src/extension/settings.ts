import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';

/** The extension's settings (contributes.configuration), read in one place. API keys are never settings. */
export interface CoevolveSettings {
  runsFolder: string;
  llmBaseUrl: string;
  llmModel: string;
  concurrency: number;
  sandboxBackend: 'config' | 'auto' | 'docker' | 'bwrap' | 'process';
  dockerHost: string;
  cacheMode: 'off' | 'rw' | 'replay';
}

export function readSettings(scope?: vscode.ConfigurationScope): CoevolveSettings {
  const c = vscode.workspace.getConfiguration('coevolve', scope);
  return {
    runsFolder: c.get<string>('runsFolder', 'runs') || 'runs',
    llmBaseUrl: c.get<string>('llm.baseUrl', ''),
    llmModel: c.get<string>('llm.model', ''),
    concurrency: c.get<number>('concurrency', 0),
    sandboxBackend: c.get<CoevolveSettings['sandboxBackend']>('sandbox.backend', 'config'),
    dockerHost: c.get<string>('sandbox.dockerHost', ''),
    cacheMode: c.get<CoevolveSettings['cacheMode']>('llm.cache', 'rw'),
  };
}

/** The runs output folder of every local workspace folder (virtual folders have no disk path to read runs from). */
export function runsOutputDirs(): string[] {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => {
      const folder = readSettings(f.uri).runsFolder;
      return isAbsolute(folder) ? folder : join(f.uri.fsPath, folder);
    });
}
