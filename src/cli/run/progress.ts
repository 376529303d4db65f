import type { GenerationMetrics } from '../../core/metrics/generationMetrics.js';
import cliProgress from 'cli-progress';
import type { ControllerProgress } from '../../core/evolution/controllerPorts.js';
import { hasVerdict } from '../../core/rollout/verdict.js';
import { designLevelLabel, generationLabel, measuredLabel } from '../../webview/names.js';
import { fixed } from '../../webview/render/figures.js';

/** Lines of progress inside a generation when not on a terminal: at each quarter of its rollouts. */
const quarters = [0.25, 0.5, 0.75];

/**
 * Live progress: one bar per generation (rollouts done / total, success so far, phase, ETA) on a terminal. Elsewhere
 * (CI logs, pipes) plain lines: when a generation starts, at each quarter of its rollouts, at each phase after
 * play, and its result, so a piped log is never silent for a whole generation. Generations are named as in the
 * run directory and every viewer: "generation 2 (3 of 5)".
 */
export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): { onProgress: (p: ControllerProgress) => void; stop: () => void } {
  const tty = Boolean(stream.isTTY);
  const multi = tty
    ? new cliProgress.MultiBar(
        {
          stream,
          format: ' {gen} {bar} {value}/{total} rollouts | success {success} | {phase} | ETA {eta_formatted}',
          barsize: 24,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 40,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let bar: cliProgress.SingleBar | undefined;
  let successes = 0, plays = 0, startedAt = 0, nextQuarter = 0, total = 0, label = '';
  const line = (text: string): void => {
    if (multi) multi.log(`${text}\n`);
    else stream.write(`${text}\n`);
  };
  const rate = (): string => (plays ? `${Math.round((100 * successes) / plays)}%` : '—');
  const elapsed = (): string => `${Math.round((now() - startedAt) / 1000)} s`;
  return {
    onProgress(p) {
      switch (p.type) {
        case 'generation.started':
          successes = 0;
          plays = 0;
          nextQuarter = 0;
          total = p.rollouts;
          startedAt = now();
          label = generationLabel(p.generation, p.generations);
          bar = multi?.create(p.rollouts, p.alreadyDone, { gen: label, success: '—', phase: 'playing' });
          if (!multi) line(`${label}: playing ${p.rollouts} rollouts${p.alreadyDone ? ` (${p.alreadyDone} already done)` : ''}`);
          break;
        case 'rollout.finished':
          // Plays with an outcome only, as the generation's success rate counts them (verdict.ts).
          if (!p.summary.hint && hasVerdict(p.summary)) {
            plays++;
            if (p.summary.success) successes++;
          }
          bar?.update(p.done, { success: rate() });
          while (!multi && nextQuarter < quarters.length && p.done >= (quarters[nextQuarter] as number) * total) {
            nextQuarter++;
            line(`${label}: ${p.done}/${total} rollouts · success so far ${rate()} · ${elapsed()}`);
          }
          break;
        case 'phase':
          bar?.update({ phase: p.phase });
          if (!multi) line(`${label}: ${p.phase}`);
          break;
        case 'generation.finished': {
          const m = p.metrics;
          bar?.update({ phase: 'done' });
          bar?.stop();
          line(
            `  generation ${m.index}: success ${(m.successRate * 100).toFixed(0)}% · in band ${(m.inBandShare * 100).toFixed(0)}%${frontierSummary(m)} · ${designLevelLabel(m.meanDifficulty, 1)} · regret ${m.regret.toFixed(2)} · children ${m.frontierYield.accepted}/${m.frontierYield.proposed} · agent ${m.agent.id}${m.agent.changed ? ' (promoted)' : ''}${multi ? '' : ` · ${elapsed()}`}`,
          );
          break;
        }
      }
    },
    stop() {
      multi?.stop();
    },
  };
}

/** The version-2 figures of a generation line, when the metrics have them: archive in band, measured difficulty, held-out agent. */
function frontierSummary(m: GenerationMetrics): string {
  if (!m.archiveBand || !m.measuredDifficulty) return '';
  const test = m.heldOut?.test ? ` · held-out ${(m.heldOut.test.score.success * 100).toFixed(0)}%` : '';
  // The agent's ability is on the same scale: where the two meet the agent solves the archive half the time, so a
  // reader sees whether the archive sits at the agent or still above or below it.
  const agent = `, agent ability ${fixed(m.measuredDifficulty.agent.ability, 2)}`;
  return ` (archive ${(m.archiveBand.inBandShare * 100).toFixed(0)}% of ${m.archiveBand.activePairs}) · difficulty ${measuredLabel(m.measuredDifficulty.archive.mean)}${agent}${test}`;
}
