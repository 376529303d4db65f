// Keys must never reach logs, errors, cache files or run files. Anything that leaves the adapter as text goes
// through here: every configured key itself (whatever its length: a server may echo a short one back), bearer
// tokens, OpenAI-style secret keys and credentials in URLs are masked.
const patterns: RegExp[] = [
  // Values already masked are left alone, so scrubbing twice changes nothing.
  /(authorization\s*[:=]\s*)("?)(?!\[redacted\])[^\s",}]+(\s+(?!\[redacted\])[^\s",}]+)?/gi,
  /\bbearer\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /(api[_-]?key\s*[:=]\s*)("?)(?!\[redacted\])[^\s",}]+/gi,
  /(\/\/)[^/\s:@]+:[^/\s@]+@/g,
];

export function scrubSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a key that contains another is masked whole.
  const secrets = [...new Set(knownSecrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  out = out.replace(patterns[0] as RegExp, '$1$2[redacted]');
  out = out.replace(patterns[1] as RegExp, 'Bearer [redacted]');
  out = out.replace(patterns[2] as RegExp, 'sk-[redacted]');
  out = out.replace(patterns[3] as RegExp, '$1$2[redacted]');
  out = out.replace(patterns[4] as RegExp, '$1[redacted]@');
  return out;
}
