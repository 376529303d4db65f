// Two generations, or two runs, side by side: stored figures and their differences. Differences of shares are
// written in percentage points (pp), never as "%"; better / worse is marked only where a direction is meaningful.
import { html, type TemplateResult } from 'lit';
import type { GenerationFigures, RunOverview } from '../protocol.js';
import { fixed, pp } from './figures.js';

interface Row {
  label: string;
  value: (m: GenerationFigures, r: RunOverview) => number | undefined;
  kind: 'share' | 'number' | 'count' | 'usd';
  higherIsBetter?: boolean;
}

export const compareRows: Row[] = [
  { label: 'success', value: (m) => m.successRate, kind: 'share' },
  { label: 'verifier success', value: (m) => m.verifierSuccessRate, kind: 'share' },
  { label: 'pass^k', value: (m, r) => m.passHatK[r.k], kind: 'share' },
  { label: 'in band (this generation)', value: (m) => m.inBandShare, kind: 'share', higherIsBetter: true },
  { label: 'frontier pairs', value: (m) => m.difficulty.frontier, kind: 'share', higherIsBetter: true },
  { label: 'archive in band (pooled)', value: (m) => m.archiveBand?.inBandShare, kind: 'share', higherIsBetter: true },
  { label: 'agent on test set', value: (m) => m.heldOut?.test?.score.success, kind: 'share', higherIsBetter: true },
  { label: 'mean reward', value: (m) => m.meanReward, kind: 'number' },
  { label: 'regret', value: (m) => m.regret, kind: 'number' },
  { label: 'design difficulty (mean)', value: (m) => m.meanDifficulty, kind: 'number' },
  { label: 'measured difficulty (logits)', value: (m) => m.measuredDifficulty?.archive.mean, kind: 'number' },
  { label: 'evolved users', value: (m) => m.users.evolvedShare, kind: 'share' },
  { label: 'archive size', value: (m) => m.archive.size, kind: 'count' },
  { label: 'skill entropy (bits)', value: (m) => m.diversity.skillEntropy, kind: 'number' },
  { label: 'rollouts', value: (m) => m.rollouts, kind: 'count' },
  { label: 'tokens', value: (m) => m.tokens, kind: 'count' },
  { label: 'cost', value: (m) => m.costUsd, kind: 'usd', higherIsBetter: false },
  { label: 'errors', value: (m) => m.errors, kind: 'count', higherIsBetter: false },
  { label: 'no outcome', value: (m) => m.unfinished, kind: 'count', higherIsBetter: false },
];

export function formatCell(kind: Row['kind'], x: number): string {
  if (kind === 'share') return `${Math.round(x * 100)} %`;
  if (kind === 'usd') return `$${x.toFixed(4)}`;
  if (kind === 'count') return String(Math.round(x));
  return fixed(x, 3);
}

/** A difference in the row's own unit: percentage points for shares. */
export function formatDelta(kind: Row['kind'], d: number): string {
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  const a = Math.abs(d);
  if (kind === 'share') return pp(d);
  if (kind === 'usd') return `${sign}$${a.toFixed(4)}`;
  if (kind === 'count') return `${sign}${Math.round(a)}`;
  return `${sign}${a.toFixed(3)}`;
}

export function compareTable(left: GenerationFigures | undefined, right: GenerationFigures | undefined, lrun: RunOverview, rrun: RunOverview, head: [string, string], id: string): TemplateResult {
  const rows = compareRows.filter((row) => (left && row.value(left, lrun) !== undefined) || (right && row.value(right, rrun) !== undefined));
  return html`<table class="compare" id=${id}>
    <thead><tr><th></th><th>${head[0]}</th><th>${head[1]}</th><th>difference</th></tr></thead>
    <tbody>${rows.map((row) => {
      const x = left ? row.value(left, lrun) : undefined;
      const y = right ? row.value(right, rrun) : undefined;
      const d = x !== undefined && y !== undefined ? y - x : undefined;
      const cls = d === undefined || d === 0 || row.higherIsBetter === undefined ? '' : (d > 0) === row.higherIsBetter ? 'better' : 'worse';
      return html`<tr><td>${row.label}</td><td>${x !== undefined ? formatCell(row.kind, x) : '–'}</td><td>${y !== undefined ? formatCell(row.kind, y) : '–'}</td><td class=${cls}>${d !== undefined ? formatDelta(row.kind, d) : '–'}</td></tr>`;
    })}</tbody></table>`;
}
