import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import type { AgentConfig } from '../core/spec/agent.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import { runFormatVersion, type RunEvent, type RunEventBody, type RunManifest, type RunRecorder } from '../core/ports/runStore.js';
import { JsonlAppender, writeFileDurable } from './durableFile.js';
import { runLayout } from './layout.js';
import { readEventLog } from './eventLog.js';

/** Writes a run directory. Every method is durable when its promise resolves. */
export class RunWriter implements RunRecorder {
  private log: JsonlAppender;
  private seq: number;

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
    writeFileDurable(runLayout.manifest(runDir), `${JSON.stringify(full, null, 2)}\n`);
    return new RunWriter(runDir, full, 1);
  }

  /** Reopens an existing run for appending (resume). The event log's torn tail, if any, is repaired. */
  static reopen(runDir: string): RunWriter {
    const manifest = JSON.parse(readFileSync(runLayout.manifest(runDir), 'utf8')) as RunManifest;
    const { events } = readEventLog(runLayout.events(runDir));
    const last = events.at(-1);
    return new RunWriter(runDir, manifest, last ? last.seq + 1 : 1);
  }

  async append(body: RunEventBody): Promise<RunEvent> {
    const event = { seq: this.seq++, at: new Date().toISOString(), ...body } as RunEvent;
    this.log.append(event);
    return event;
  }

  async writeRollout(record: RolloutRecord): Promise<void> {
    writeFileDurable(runLayout.rollout(this.runDir, record.generation, record.id), JSON.stringify(record));
  }

  async writeGenerationMetrics(generation: number, metrics: unknown): Promise<void> {
    writeFileDurable(runLayout.generationMetrics(this.runDir, generation), `${JSON.stringify(metrics, null, 2)}\n`);
  }

  async writeEnvironment(spec: EnvironmentSpec): Promise<void> {
    writeFileDurable(runLayout.environment(this.runDir, spec.id), `${JSON.stringify(spec, null, 2)}\n`);
  }

  async writeUser(user: UserProfile): Promise<void> {
    writeFileDurable(runLayout.user(this.runDir, user.id), `${JSON.stringify(user, null, 2)}\n`);
  }

  async writeAgent(agent: AgentConfig): Promise<void> {
    writeFileDurable(runLayout.agent(this.runDir, agent.id), `${JSON.stringify(agent, null, 2)}\n`);
  }

  async writeArtifact(relativePath: string, data: string | Buffer): Promise<string> {
    const path = runLayout.artifact(this.runDir, relativePath);
    writeFileDurable(path, data);
    return path;
  }

  async close(): Promise<void> {
    this.log.close();
    rmSync(runLayout.lock(this.runDir), { force: true });
  }
}

export function runDirOf(outputDir: string, name: string): string {
  return join(outputDir, name);
}
