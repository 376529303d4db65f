/** What an import did, item by item: written, skipped (and why), and what could not be mapped (and why). */
export interface ImportedItem<T> {
  /** Where it came from: a task folder, or "file#id". */
  source: string;
  id: string;
  spec: T;
  /** What the YAML file holds: the fields the source gave, without the defaults the schema fills in. */
  document: unknown;
  /** Comment lines for the top of the YAML file (source, date, notes). */
  header: string[];
  /** Fields of the source with no place in our spec: "field: why". */
  unmapped: string[];
  /** Written file, once written. */
  file?: string;
}

export interface SkippedItem {
  source: string;
  reason: string;
}

export interface ImportResult<T> {
  imported: ImportedItem<T>[];
  skipped: SkippedItem[];
}

export function formatImportReport<T>(what: string, r: ImportResult<T>): string {
  const lines: string[] = [];
  for (const item of r.imported) {
    lines.push(`imported ${item.source} -> ${item.file ?? item.id}`);
    for (const u of item.unmapped) lines.push(`  not mapped: ${u}`);
  }
  for (const s of r.skipped) lines.push(`skipped ${s.source}: ${s.reason}`);
  const unmapped = r.imported.reduce((n, i) => n + i.unmapped.length, 0);
  lines.push(`${r.imported.length} ${what} imported, ${r.skipped.length} skipped, ${unmapped} field(s) not mapped`);
  return lines.join('\n');
}
