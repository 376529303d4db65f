import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GenerationMetrics } from '../../core/metrics/generationMetrics.js';
import { openRun, readGenerationMetrics, type RunIndex } from '../../store/runReader.js';

export interface RunReport {
  run: { dir: string; name: string; runId: string; seed: number; status: string; roles: Record<string, string>; generations: number; rollouts: number };
  /** Per generation, everything but wall-clock timings, so two runs of the same config and seed compare equal. */
  generations: Omit<GenerationMetrics, 'durationMs'>[];
  timing: { generationMs: number[] };
}

export function buildReport(runDir: string): RunReport {
  const index: RunIndex = openRun(runDir);
  const metrics: GenerationMetrics[] = [];
  const dir = join(runDir, 'generations');
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).filter((n) => /^g\d{4}\.json$/.test(n)).sort()) {
      const m = readGenerationMetrics<GenerationMetrics>(runDir, Number(f.slice(1, 5)));
      if (m) metrics.push(m);
    }
  }
  return {
    run: {
      dir: runDir,
      name: index.manifest.name,
      runId: index.manifest.runId,
      seed: index.manifest.seed,
      status: index.status,
      roles: index.manifest.roles,
      generations: metrics.length,
      rollouts: index.rollouts.size,
    },
    generations: metrics.map(({ durationMs: _d, ...rest }) => rest),
    timing: { generationMs: metrics.map((m) => m.durationMs) },
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const num = (x: number, d = 2): string => x.toFixed(d);

/** The markdown table people read in a terminal or paste into a note. */
export function formatReportMarkdown(r: RunReport): string {
  const lines = [
    `# ${r.run.name} (${r.run.status})`,
    '',
    `run ${r.run.runId} · seed ${r.run.seed} · ${r.run.rollouts} rollouts · ${Object.entries(r.run.roles).map(([k, v]) => `${k}: ${v}`).join(' · ')}`,
    '',
    '| gen | rollouts | success | verifier | pass@1 | pass^4 | reward | regret | difficulty | in band | children ok/all | rejections | users evolved | agent | tokens | cost $ |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|',
  ];
  for (const g of r.generations) {
    const rej = Object.entries(g.rejections).map(([k, v]) => `${k} ${v}`).join(', ') || '—';
    const agent = `${g.agent.id}${g.agent.changed ? ' ↑' : ''}`;
    lines.push(
      `| ${g.index} | ${g.rollouts} | ${pct(g.successRate)} | ${pct(g.verifierSuccessRate)} | ${pct(g.passAtK[1] ?? 0)} | ${pct(g.passHatK[4] ?? 0)} | ${num(g.meanReward)} | ${num(g.regret)} | ${num(g.meanDifficulty, 1)} | ${pct(g.inBandShare)} | ${g.frontierYield.accepted}/${g.frontierYield.proposed} | ${rej} | ${pct(g.users.evolvedShare ?? 0)} | ${agent} | ${g.tokens} | ${num(g.costUsd, 4)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
