import { configRepair } from './configRepair.js';
import { csvReport } from './csvReport.js';
import type { TaskFamily } from './family.js';
import { fileOrganize } from './fileOrganize.js';
import { logTriage } from './logTriage.js';

/** Every built-in task family, in a stable order. */
export const builtinFamilies: readonly TaskFamily[] = [logTriage, csvReport, configRepair, fileOrganize];

export function findFamily(name: string): TaskFamily | undefined {
  return builtinFamilies.find((f) => f.name === name);
}
