// Draws one ChartSpec with uPlot: a colour-blind-safe palette (Okabe–Ito, from common.css), a dash pattern per
// series so overlapping lines stay apart, the target band and intervals shaded, axes with their unit, and a legend
// that shows the last generation's values until the pointer picks another (never "--").
import uPlot from 'uplot';
import type { RunOverview } from '../protocol.js';
import { unitLabel, type ChartSpec, type DrawnSeries } from './chartSpecs.js';
import { fixed } from './figures.js';

const paletteVars = ['--coevolve-blue', '--coevolve-orange', '--coevolve-green', '--coevolve-vermillion', '--coevolve-purple', '--coevolve-sky', '--coevolve-yellow', '--coevolve-grey'];
const dashes: (number[] | undefined)[] = [undefined, [8, 4], [2, 3], [12, 3, 3, 3], [4, 4], [1, 5]];

/**
 * The theme colours, read from the body's computed style once per task: each read after a chart was mounted forced
 * a style recalculation (a chart reads up to nine colours), so twelve charts recalculated the page's style about a
 * hundred times. A theme change is a new task, which reads them again.
 */
let colours: Map<string, string> | undefined;
function cssVar(name: string, fallback: string): string {
  if (!colours) {
    const style = getComputedStyle(document.body);
    colours = new Map([...paletteVars, '--vscode-foreground'].map((n) => [n, style.getPropertyValue(n).trim()]));
    queueMicrotask(() => (colours = undefined));
  }
  return colours.get(name) || fallback;
}

export function paletteColor(i: number): string {
  return cssVar(paletteVars[i % paletteVars.length] as string, '#0072b2');
}

function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return color;
  const n = parseInt(hex, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

const formatValue = (unit: ChartSpec['unit'], v: number | null | undefined): string => {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (unit === 'share') return `${(v * 100).toFixed(0)} %`;
  if (unit === 'usd') return `$${v.toFixed(v < 0.01 && v > 0 ? 4 : 2)}`;
  if (unit === 'count' || unit === 'rollouts') return String(Math.round(v));
  return fixed(v, 2);
};

/** Shares on 0–100 %; counts and money from 0, and a flat zero line still gets an axis of 0..1, not 0..100. */
function yScale(unit: ChartSpec['unit']): uPlot.Scale {
  if (unit === 'share') return { range: [0, 1] };
  if (unit === 'count' || unit === 'usd' || unit === 'rollouts') return { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] };
  return {};
}

export interface PlotInput {
  spec: ChartSpec;
  runs: { run: RunOverview; label: string; series: DrawnSeries[] }[];
  n: number;
  width: number;
  band?: { low: number; high: number };
}

/** Builds the uPlot options and data for a chart; the caller mounts it (kept apart so it reads as one step). */
export function plotOptions(input: PlotInput): { opts: uPlot.Options; data: uPlot.AlignedData } {
  const { spec, n } = input;
  const { data, series, bands } = plotSeries(input);
  const opts: uPlot.Options = {
    width: input.width,
    height: 190,
    series,
    bands,
    scales: { x: { time: false, range: [-0.2, Math.max(0.2, n - 0.8)] }, y: yScale(spec.unit) },
    axes: plotAxes(spec.unit),
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    hooks: plotHooks(spec.band ? input.band : undefined, n - 1),
  };
  return { opts, data: data as uPlot.AlignedData };
}

/** The generations as x, then a data row and a uPlot series per drawn series; an interval is shaded between its bounds. */
function plotSeries(input: PlotInput): { data: (number | null)[][]; series: uPlot.Series[]; bands: uPlot.Band[] } {
  const { spec, runs, n } = input;
  const data: (number | null)[][] = [Array.from({ length: n }, (_, i) => i)];
  const series: uPlot.Series[] = [{ label: 'generation', value: (_u, v) => (v === null ? '–' : `g${v}`) }];
  const bands: uPlot.Band[] = [];
  const compare = runs.length > 1;
  runs.forEach((r, ri) => {
    let lineIndex = 0;
    r.series.forEach((s) => {
      data.push(s.values);
      const idx = data.length - 1;
      const look = seriesLook(s, ri, lineIndex, compare);
      series.push(seriesOptions(s, compare ? `${s.label} · ${r.label}` : s.label, look, spec.unit, n));
      if (s.interval === 'high') bands.push({ series: [idx, idx - 1], fill: withAlpha(look.color, 0.15) });
      if (!s.interval) lineIndex++;
    });
  });
  return { data, series, bands };
}

/** One run: colour names the series. Two runs: colour names the run and the dash names the series. */
function seriesLook(s: DrawnSeries, runIndex: number, lineIndex: number, compare: boolean): { color: string; dash: number[] | undefined } {
  const color = compare ? paletteColor(runIndex) : paletteColor(s.interval ? Math.max(0, lineIndex - 1) : lineIndex);
  const dash = compare ? dashes[lineIndex % dashes.length] : s.interval ? [2, 2] : dashes[lineIndex % dashes.length];
  return { color, dash };
}

/** A line, or a thin pale interval bound without points; the legend shows values in the chart's unit. */
function seriesOptions(s: DrawnSeries, label: string, { color, dash }: { color: string; dash: number[] | undefined }, unit: ChartSpec['unit'], n: number): uPlot.Series {
  return {
    label,
    stroke: s.interval ? withAlpha(color, 0.5) : color,
    width: s.interval ? 1 : 2,
    ...(dash ? { dash } : {}),
    points: { show: n < 40 && !s.interval, size: 6, fill: color },
    value: (_u, v) => formatValue(unit, v),
    spanGaps: false,
  };
}

/** Generations on x ("g3", whole ones only); the unit on y. */
function plotAxes(unit: ChartSpec['unit']): uPlot.Axis[] {
  const fg = cssVar('--vscode-foreground', '#444');
  const grid = 'rgba(127,127,127,0.2)';
  return [
    { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid }, incrs: [1, 2, 5, 10, 20, 50, 100], values: (_u, vals) => vals.map((x) => (Number.isInteger(x) ? `g${x}` : '')), label: 'generation', labelSize: 18 },
    {
      stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid }, label: unitLabel[unit].trim() || '%', labelSize: 18, size: 52,
      values: (_u: uPlot, vals: number[]) => vals.map((x) => (unit === 'share' ? `${Math.round(x * 100)}%` : unit === 'usd' ? `$${x}` : x < 0 ? `−${-x}` : String(x))),
    },
  ];
}

function plotHooks(band: PlotInput['band'], lastIndex: number): uPlot.Options['hooks'] {
  return {
    // The target band under the series, so "in band" is visible at a glance.
    drawAxes: band ? [(u) => {
      const top = u.valToPos(band.high, 'y', true);
      const bottom = u.valToPos(band.low, 'y', true);
      u.ctx.save();
      u.ctx.fillStyle = withAlpha(paletteColor(2), 0.14);
      u.ctx.fillRect(u.bbox.left, top, u.bbox.width, bottom - top);
      u.ctx.restore();
    }] : [],
    // Without a pointer the legend shows the last generation rather than "--".
    ready: [(u) => u.setLegend({ idx: lastIndex })],
    setCursor: [(u) => {
      if (u.cursor.idx === null || u.cursor.idx === undefined) u.setLegend({ idx: lastIndex }, false);
    }],
  };
}

export function mountPlot(input: PlotInput, target: HTMLElement): uPlot {
  const { opts, data } = plotOptions(input);
  return new uPlot(opts, data, target);
}
