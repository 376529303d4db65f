import cliProgress from 'cli-progress';
import type { ControllerProgress } from '../../core/evolution/controllerPorts.js';

/**
 * Live progress: one bar per generation (rollouts done / total, success so far, ETA) on a terminal; one plain line
 * per generation elsewhere (CI logs, pipes), so logs stay readable.
 */
export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr): { onProgress: (p: ControllerProgress) => void; stop: () => void } {
  const tty = Boolean(stream.isTTY);
  const multi = tty
    ? new cliProgress.MultiBar(
        {
          stream,
          format: ' gen {gen} {bar} {value}/{total} rollouts | success {success} | {phase} | ETA {eta_formatted}',
          barsize: 24,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 40,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let bar: cliProgress.SingleBar | undefined;
  let successes = 0, plays = 0;
  const line = (text: string): void => {
    if (multi) multi.log(`${text}\n`);
    else stream.write(`${text}\n`);
  };
  return {
    onProgress(p) {
      switch (p.type) {
        case 'generation.started':
          successes = 0;
          plays = 0;
          bar = multi?.create(p.rollouts, p.alreadyDone, { gen: `${p.generation + 1}/${p.generations}`, success: '—', phase: 'playing' });
          if (!multi) line(`generation ${p.generation + 1}/${p.generations}: ${p.rollouts} rollouts${p.alreadyDone ? ` (${p.alreadyDone} already done)` : ''}`);
          break;
        case 'rollout.finished':
          if (!p.summary.hint) {
            plays++;
            if (p.summary.success) successes++;
          }
          bar?.update(p.done, { success: plays ? `${Math.round((100 * successes) / plays)}%` : '—' });
          break;
        case 'phase':
          bar?.update({ phase: p.phase });
          break;
        case 'generation.finished': {
          const m = p.metrics;
          bar?.update({ phase: 'done' });
          bar?.stop();
          line(
            `  gen ${m.index}: success ${(m.successRate * 100).toFixed(0)}% · in band ${(m.inBandShare * 100).toFixed(0)}% · difficulty ${m.meanDifficulty.toFixed(1)} · regret ${m.regret.toFixed(2)} · children ${m.frontierYield.accepted}/${m.frontierYield.proposed} · agent ${m.agent.id}${m.agent.changed ? ' (promoted)' : ''}`,
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
