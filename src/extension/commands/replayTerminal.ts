import * as vscode from 'vscode';
import type { AtifStep, RolloutRecord } from '../../core/rollout/trajectory.js';

const c = { dim: '\x1b[2m', cyan: '\x1b[36m', magenta: '\x1b[35m', green: '\x1b[32m', red: '\x1b[31m', yellow: '\x1b[33m', bold: '\x1b[1m', reset: '\x1b[0m' };
const crlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');

/** The lines a step prints in the replay, with terminal colours (pure, so the format is unit-tested). */
export function replayLines(step: AtifStep): string[] {
  const out: string[] = [];
  if (step.source === 'user') out.push(`${c.cyan}${c.bold}user>${c.reset} ${step.message}`);
  else if (step.source === 'system') out.push(`${c.yellow}system>${c.reset} ${step.message}`);
  else if (step.message) out.push(`${c.magenta}${c.bold}agent>${c.reset} ${step.message}`);
  const results = new Map((step.observation?.results ?? []).map((r) => [r.source_call_id, r]));
  for (const call of step.tool_calls ?? []) {
    const r = results.get(call.tool_call_id);
    if (call.function_name === 'run_command' || r?.command) {
      const cmd = typeof call.arguments['command'] === 'string' ? (call.arguments['command'] as string) : JSON.stringify(call.arguments);
      out.push(`${c.green}$${c.reset} ${cmd}`);
      if (r?.content) out.push(r.content.replace(/\n$/, ''));
      if (r?.command) {
        const failed = r.command.exitCode !== 0 || r.command.timedOut;
        const marks = [`exit ${r.command.exitCode}`, `${r.command.durationMs} ms`, r.command.truncated ? 'output truncated' : '', r.command.timedOut ? 'timed out' : ''].filter(Boolean).join(' · ');
        out.push(`${failed ? c.red : c.dim}[${marks}]${c.reset}`);
      }
    } else if (call.function_name === 'message_user') {
      out.push(`${c.magenta}agent asks>${c.reset} ${String(call.arguments['text'] ?? '')}`);
    } else if (call.function_name === 'submit') {
      out.push(`${c.green}${c.bold}submitted${c.reset}`);
    } else {
      out.push(`${c.dim}${call.function_name}(${JSON.stringify(call.arguments)})${c.reset}`);
    }
  }
  if (step.extra?.error) out.push(`${c.red}error: ${step.extra.error}${c.reset}`);
  return out;
}

/**
 * Replays a recorded rollout in a terminal: every step at its recorded time offset (waits capped at 2 s and
 * divided by `speed`), then the verdict. Space pauses, q or Ctrl-C closes.
 */
export function replayPty(record: RolloutRecord, speed = 1): vscode.Pseudoterminal & { done: Promise<void> } {
  const write = new vscode.EventEmitter<string>();
  const close = new vscode.EventEmitter<number | void>();
  let paused = false;
  let closed = false;
  let resume: (() => void) | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((r) => (finish = r));
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  const print = (s: string): void => write.fire(`${crlf(s)}\r\n`);
  const play = async (): Promise<void> => {
    print(`${c.bold}Replay of ${record.id}${c.reset} ${c.dim}(${record.envId} × ${record.userId}, generation ${record.generation}, ${record.steps.length} steps, recorded timing ×${speed}; space pauses, q quits)${c.reset}`);
    let prev = record.steps[0] ? new Date(record.steps[0].timestamp).getTime() : 0;
    for (const step of record.steps) {
      if (closed) return;
      const at = new Date(step.timestamp).getTime();
      await sleep(Math.min(2000, Math.max(0, at - prev)) / speed);
      prev = at;
      while (paused && !closed) await new Promise<void>((r) => (resume = r));
      for (const line of replayLines(step)) print(line);
    }
    const ok = record.success;
    print(`\r\n${ok ? c.green : c.red}${c.bold}${ok ? 'PASSED' : 'FAILED'}${c.reset} reward ${record.rewards.total.toFixed(3)} · ${record.status}${record.verifier ? ` · verifier exit ${record.verifier.exitCode}` : ''}`);
    if (record.verifier?.stdout) print(`${c.dim}${record.verifier.stdout.trimEnd()}${c.reset}`);
    print(`${c.dim}(replay finished; press q to close)${c.reset}`);
    finish();
  };
  return {
    onDidWrite: write.event,
    onDidClose: close.event,
    open: () => void play(),
    close: () => {
      closed = true;
      resume?.();
      finish();
    },
    handleInput: (data: string) => {
      if (data === 'q' || data === '\x03') {
        closed = true;
        resume?.();
        finish();
        close.fire();
      } else if (data === ' ') {
        paused = !paused;
        if (!paused) resume?.();
      }
    },
    done,
  };
}
