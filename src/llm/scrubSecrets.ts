// Keys must never reach logs, errors, cache files or run files. Anything that leaves the adapter as text goes
// through here: the known key itself, bearer tokens and OpenAI-style secret keys are masked.
const patterns: RegExp[] = [
  /(authorization\s*[:=]\s*)("?)[^\s",}]+(\s+[^\s",}]+)?/gi,
  /\bbearer\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /(api[_-]?key\s*[:=]\s*)("?)[^\s",}]+/gi,
];

export function scrubSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    // Short values (a placeholder such as "none") would mask ordinary words; real keys are long.
    if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  out = out.replace(patterns[0] as RegExp, '$1$2[redacted]');
  out = out.replace(patterns[1] as RegExp, 'Bearer [redacted]');
  out = out.replace(patterns[2] as RegExp, 'sk-[redacted]');
  out = out.replace(patterns[3] as RegExp, '$1$2[redacted]');
  return out;
}
