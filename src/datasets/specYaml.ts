import { Document } from 'yaml';

/** A spec as YAML with comment lines on top (where it came from, when, what was not mapped). */
export function renderSpecYaml(spec: unknown, header: readonly string[]): string {
  const doc = new Document(spec);
  doc.commentBefore = header.map((l) => ` ${l}`).join('\n');
  return doc.toString({ lineWidth: 0 });
}
