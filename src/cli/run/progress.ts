import type { GenerationMetrics } from '../../core/metrics/generationMetrics.js';
import cliProgress from 'cli-progress';
import type { ControllerProgress } from '../../core/evolution/controllerPorts.js';
import { hasVerdict } from '../../core/rollout/verdict.js';
import { designLevelLabel, generationLabel, measuredLabel } from '../../webview/names.js';
import { fixed } from '../../webview/render/figures.js';

/** Lines of progress inside a generation when not on a terminal: at each quarter of its rollouts. */
const quarters = [0.25, 0.5, 0.75];

/** After play, off a terminal: a line on the measurement plays when nothing was written for this long. */
const quietMs = 30_000;

/**
 * Live progress: one bar per generation (rollouts done / total, success so far, phase, ETA) on a terminal. Elsewhere
 * (CI logs, pipes) plain lines: when a generation starts, at each quarter of its rollouts, at each phase after
 * play, every 30 s of a phase's measurement plays (screening children took minutes on a loaded machine with no line),
 * and its result, so a piped log is never silent for long. Generations are named as in the
 * run directory and every viewer: "generation 2 (3 of 5)".
 */
export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): { onProgress: (p: ControllerProgress) => void; stop: () => void } {
  const lines = new ProgressLines(stream, now, stream.isTTY ? terminalBars(stream) : undefined);
  return {
    onProgress: (p) => lines.onProgress(p),
    stop: () => lines.stop(),
  };
}

/** One bar per generation, drawn together on the terminal. */
function terminalBars(stream: NodeJS.WriteStream): cliProgress.MultiBar {
  return new cliProgress.MultiBar(
    {
      stream,
      format: ' {gen} {bar} {value}/{total} rollouts | success {success} | {phase} | ETA {eta_formatted}',
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 40,
    },
    cliProgress.Presets.shades_classic,
  );
}

type ProgressOf<T extends ControllerProgress['type']> = Extract<ControllerProgress, { type: T }>;

/** The progress of the generation being played, drawn on its bar or written as lines. */
class ProgressLines {
  private bar: cliProgress.SingleBar | undefined;
  private successes = 0;
  private plays = 0;
  private startedAt = 0;
  private nextQuarter = 0;
  private total = 0;
  private label = '';
  private phaseName = '';
  private lastLineAt = 0;

  constructor(private readonly stream: NodeJS.WriteStream, private readonly now: () => number, private readonly multi: cliProgress.MultiBar | undefined) {}

  onProgress(p: ControllerProgress): void {
    switch (p.type) {
      case 'generation.started':
        return this.generationStarted(p);
      case 'rollout.finished':
        return this.rolloutFinished(p);
      case 'phase':
        return this.phase(p.phase);
      case 'measurement.finished':
        return this.measured(p.done);
      case 'generation.finished':
        return this.generationFinished(p.metrics);
    }
  }

  stop(): void {
    this.multi?.stop();
  }

  private generationStarted(p: ProgressOf<'generation.started'>): void {
    this.successes = 0;
    this.plays = 0;
    this.nextQuarter = 0;
    this.phaseName = '';
    this.total = p.rollouts;
    this.startedAt = this.now();
    this.label = generationLabel(p.generation, p.generations);
    this.bar = this.multi?.create(p.rollouts, p.alreadyDone, { gen: this.label, success: '—', phase: 'playing' });
    if (!this.multi) this.line(`${this.label}: playing ${p.rollouts} rollouts${p.alreadyDone ? ` (${p.alreadyDone} already done)` : ''}`);
  }

  /**
   * The success so far counts plays with an outcome only, as the generation's success rate does (verdict.ts): no hint
   * plays, errors or cut verifications. Off a terminal, a line at each quarter of the rollouts.
   */
  private rolloutFinished(p: ProgressOf<'rollout.finished'>): void {
    if (!p.summary.hint && hasVerdict(p.summary)) {
      this.plays++;
      if (p.summary.success) this.successes++;
    }
    this.bar?.update(p.done, { success: this.rate() });
    while (!this.multi && this.nextQuarter < quarters.length && p.done >= (quarters[this.nextQuarter] as number) * this.total) {
      this.nextQuarter++;
      this.line(`${this.label}: ${p.done}/${this.total} rollouts · success so far ${this.rate()} · ${this.elapsed()}`);
    }
  }

  private phase(phase: ProgressOf<'phase'>['phase']): void {
    this.phaseName = phase;
    this.bar?.update({ phase });
    if (!this.multi) this.line(`${this.label}: ${phase}`);
  }

  /** The generation's measurement plays so far: on the bar's phase, or a line when the log has been quiet. */
  private measured(done: number): void {
    const what = `${this.phaseName || 'measuring'} · ${done} measurement plays`;
    if (this.multi) this.bar?.update({ phase: what });
    else if (this.now() - this.lastLineAt >= quietMs) this.line(`${this.label}: ${what} · ${this.elapsed()}`);
  }

  private generationFinished(m: GenerationMetrics): void {
    this.bar?.update({ phase: 'done' });
    this.bar?.stop();
    this.line(
      `  generation ${m.index}: success ${(m.successRate * 100).toFixed(0)}% · in band ${(m.inBandShare * 100).toFixed(0)}%${frontierSummary(m)} · ${designLevelLabel(m.meanDifficulty, 1)} · regret ${m.regret.toFixed(2)} · children ${m.frontierYield.accepted}/${m.frontierYield.proposed} · agent ${m.agent.id}${m.agent.changed ? ' (promoted)' : ''}${this.multi ? '' : ` · ${this.elapsed()}`}`,
    );
  }

  private line(text: string): void {
    this.lastLineAt = this.now();
    if (this.multi) this.multi.log(`${text}\n`);
    else this.stream.write(`${text}\n`);
  }

  private rate(): string {
    return this.plays ? `${Math.round((100 * this.successes) / this.plays)}%` : '—';
  }

  private elapsed(): string {
    return `${Math.round((this.now() - this.startedAt) / 1000)} s`;
  }
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
