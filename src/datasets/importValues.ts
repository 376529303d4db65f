// Reading values of a foreign format (task.toml, tau2 JSON) into our spec ranges. Every value that is dropped,
// clamped or cut leaves a note ("field = value: why; what happened"), so an import never changes data silently.

/** A value as the source wrote it: TOML's inf / -inf / nan spelled as TOML spells them. */
export function formatSourceValue(v: unknown): string {
  if (typeof v === 'number') return Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v);
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? formatSourceValue(x) : x)) ?? String(v);
}

/** A finite number, or undefined with a note when the field is present but unusable. */
export function finiteNumber(v: unknown, field: string, notes: string[]): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  const why = typeof v === 'number' ? 'not a finite number' : 'not a number';
  notes.push(`${field} = ${formatSourceValue(v)}: ${why}; dropped, the default applies`);
  return undefined;
}

export function clampNoted(value: number, lo: number, hi: number, field: string, notes: string[]): number {
  if (value >= lo && value <= hi) return value;
  const c = Math.min(hi, Math.max(lo, value));
  notes.push(`${field} = ${formatSourceValue(value)}: outside ${lo}..${hi}, set to ${c}`);
  return c;
}

/** "2G", "512M", "1024" (MiB) or a number of MiB; Harbor's older `memory` / `storage` strings. */
export function sizeMb(v: unknown, field: string, notes: string[]): number | undefined {
  if (v === undefined || typeof v === 'number') return finiteNumber(v, field, notes);
  const m = typeof v === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?)?\s*$/i.exec(v) : null;
  if (!m) {
    notes.push(`${field} = ${formatSourceValue(v)}: not a size (e.g. "2G", "512M"); dropped, the default applies`);
    return undefined;
  }
  const n = Number(m[1]);
  const unit = (m[2] ?? 'm')[0]!.toLowerCase();
  return Math.round(unit === 'k' ? n / 1024 : unit === 'g' ? n * 1024 : unit === 't' ? n * 1024 * 1024 : n);
}

/** Text cut to a spec's limit, with a note when it was longer. */
export function cutNoted(text: string, max: number, field: string, notes: string[]): string {
  if (text.length <= max) return text;
  notes.push(`${field}: ${text.length} characters, cut to the spec's ${max}`);
  return text.slice(0, max);
}

/** A list of short strings (tags, keywords): what does not fit is dropped with one note. */
export function textListNoted(v: unknown, field: string, notes: string[], limits: { maxItems: number; maxLength: number }): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    notes.push(`${field} = ${formatSourceValue(v)}: not a list; dropped`);
    return [];
  }
  const ok = v.filter((t): t is string => typeof t === 'string' && t.length > 0 && t.length <= limits.maxLength);
  const bad = v.length - ok.length;
  if (bad > 0) notes.push(`${field}: ${bad} of ${v.length} ${field.split('.').pop()} dropped (not text, or longer than ${limits.maxLength} characters)`);
  if (ok.length > limits.maxItems) notes.push(`${field}: ${ok.length} items, the spec keeps ${limits.maxItems}`);
  return ok.slice(0, limits.maxItems);
}
