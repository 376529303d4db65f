import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { encodeTokenSidecar } from '../core/rollout/tokenSidecar.js';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import type { AgentConfig } from '../core/spec/agent.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import { runFormatVersion, type RunEvent, type RunEventBody, type RunManifest, type RunRecorder } from '../core/ports/runStore.js';
import { JsonlAppender, writeFileDurable, writeFileDurableSync } from './durableFile.js';
import { runLayout } from './layout.js';
import { readEventLog } from './eventLog.js';
import { readManifest } from './runReader.js';

/** Writes a run directory. Every method is durable when its promise resolves. */
export class RunWriter implements RunRecorder {
  private log: JsonlAppender;
  private seq: number;
  /**
   * Every write goes through one serial queue: a rollout's file is durable before the event that announces it,
   * and the engine can go on playing while the disk catches up (the promise says when it is durable).
   */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(readonly runDir: string, readonly manifest: RunManifest, nextSeq: number) {
    this.log = new JsonlAppender(runLayout.events(runDir));
    this.seq = nextSeq;
    writeFileSync(runLayout.lock(runDir), String(process.pid));
  }

  /** Creates a new run directory `<outputDir>/<name>-<timestamp>`. */
  static create(outputDir: string, manifest: Omit<RunManifest, 'formatVersion'>): RunWriter {
    const stamp = manifest.startedAt.replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    let runDir = resolve(outputDir, `${manifest.name}-${stamp}`);
    for (let i = 2; existsSync(runDir); i++) runDir = resolve(outputDir, `${manifest.name}-${stamp}-${i}`);
    mkdirSync(runDir, { recursive: true });
    const full: RunManifest = { formatVersion: runFormatVersion, ...manifest };
    // The manifest is written synchronously: a run directory without one is not a run.
    writeFileDurableSync(runLayout.manifest(runDir), `${JSON.stringify(full, null, 2)}\n`);
    return new RunWriter(runDir, full, 1);
  }

  /** Reopens an existing run for appending (resume). The event log's torn tail, if any, is repaired. */
  static reopen(runDir: string): RunWriter {
    const manifest = readManifest(runDir);
    const { events } = readEventLog(runLayout.events(runDir));
    const last = events.at(-1);
    return new RunWriter(runDir, manifest, last ? last.seq + 1 : 1);
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  append(body: RunEventBody): Promise<RunEvent> {
    // The sequence number is taken now, in call order; the line is written in the same order by the queue.
    const event = { seq: this.seq++, at: new Date().toISOString(), ...body } as RunEvent;
    return this.enqueue(async () => {
      await this.log.append(event);
      return event;
    });
  }

  writeRollout(record: RolloutRecord): Promise<void> {
    const { tokens, ...stored } = record;
    const sidecar = runLayout.rolloutTokens(this.runDir, record.generation, record.id);
    if (tokens && tokens.length > 0) stored.tokenSidecar = { file: basename(sidecar), turns: tokens.length };
    return this.enqueue(async () => {
      // The sidecar is durable before the rollout file that names it, as that file is before its event.
      if (tokens && tokens.length > 0) await writeFileDurable(sidecar, encodeTokenSidecar(record.id, tokens));
      await writeFileDurable(runLayout.rollout(this.runDir, record.generation, record.id), JSON.stringify(stored));
    });
  }

  writeGenerationMetrics(generation: number, metrics: unknown): Promise<void> {
    return this.enqueue(() => writeFileDurable(runLayout.generationMetrics(this.runDir, generation), `${JSON.stringify(metrics, null, 2)}\n`));
  }

  writeEnvironment(spec: EnvironmentSpec): Promise<void> {
    return this.enqueue(() => writeFileDurable(runLayout.environment(this.runDir, spec.id), `${JSON.stringify(spec, null, 2)}\n`));
  }

  writeUser(user: UserProfile): Promise<void> {
    return this.enqueue(() => writeFileDurable(runLayout.user(this.runDir, user.id), `${JSON.stringify(user, null, 2)}\n`));
  }

  writeAgent(agent: AgentConfig): Promise<void> {
    return this.enqueue(() => writeFileDurable(runLayout.agent(this.runDir, agent.id), `${JSON.stringify(agent, null, 2)}\n`));
  }

  writeArtifact(relativePath: string, data: string | Buffer): Promise<string> {
    const path = runLayout.artifact(this.runDir, relativePath);
    return this.enqueue(async () => {
      await writeFileDurable(path, data);
      return path;
    });
  }

  /** Resolves when everything queued so far is durable. */
  flush(): Promise<void> {
    return this.enqueue(async () => undefined);
  }

  async close(): Promise<void> {
    await this.flush();
    this.log.close();
    rmSync(runLayout.lock(this.runDir), { force: true });
  }
}
