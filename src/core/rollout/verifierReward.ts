/**
 * Reads what a verifier wrote: reward.txt holds one number, reward.json a map of numbers (partial credit;
 * a "reward" key wins, otherwise the mean). Returns undefined when the text is neither, so the exit code decides.
 */
export function parseRewardText(text: string): { reward: number; detail: Record<string, number> } | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const asNumber = Number(trimmed);
  if (Number.isFinite(asNumber)) return { reward: clamp01(asNumber), detail: {} };
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed === 'number' && Number.isFinite(parsed)) return { reward: clamp01(parsed), detail: {} };
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const detail: Record<string, number> = {};
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'number' && Number.isFinite(v)) detail[k] = v;
      const keys = Object.keys(detail);
      if (keys.length === 0) return undefined;
      const reward = detail.reward ?? keys.reduce((s, k) => s + (detail[k] ?? 0), 0) / keys.length;
      return { reward: clamp01(reward), detail };
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
