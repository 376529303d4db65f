import { randomUUID } from 'node:crypto';
import type Docker from 'dockerode';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { throwIfCancelled } from '../../core/ports/cancellation.js';
import { SandboxHostLostError, SandboxImageMissingError } from '../../core/ports/sandbox.js';
import type { Sandbox, SandboxBackend, SandboxRequest } from '../../core/ports/sandbox.js';
import { runSetup } from '../setup.js';
import { describeDockerHost, dockerFromUrl, isConnectionError } from './connect.js';
import { DockerSandbox } from './dockerSandbox.js';
import { managedLabel, ownerIsAlive, ownerLabels, sandboxLabel } from './labels.js';
import { agentUid } from './tarFiles.js';
import { readImageWorkdir, type ImageWorkdirFiles } from './imageWorkdir.js';
import { seedWorkspaceInside } from '../verification/inSandboxFiles.js';
import { channelBinary } from '../channel/binary.js';
import { injectChannel, startDockerChannel } from './dockerChannel.js';
import { containerSpec } from './containerSpec.js';
import type { DockerChannels } from './dockerChannel.js';
import type { ChannelClient } from '../channel/client.js';

export interface DockerBackendOptions {
  /** Docker endpoint (unix://, tcp://, ssh://); default DOCKER_HOST or the local socket. */
  url?: string;
  /** Folder with ca.pem, cert.pem, key.pem for tcp:// with TLS. */
  tlsDir?: string;
  /** An already configured client (tests, pools); overrides url. */
  docker?: Docker;
  /** Extra labels on everything this backend creates (e.g. coevolve.run, coevolve.test). */
  labels?: Record<string, string>;
  /**
   * Explicit ulimits for every container. Podman on a host without CAP_SYS_RESOURCE needs
   * [{Name:'nofile',Soft:1024,Hard:1024},{Name:'nproc',Soft:1000,Hard:1000}].
   */
  ulimits?: { Name: string; Soft: number; Hard: number }[];
  /**
   * Run commands through the command channel (default): one supervisor per sandbox and role, started once. false:
   * one `docker exec` per command, the path before the channel (kept as the fallback and as benchmarks' baseline).
   */
  channel?: boolean;
  /** Where "the command channel is not available" is said, once per backend. Default: stderr. */
  warn?: (message: string) => void;
}

/** The container shape that does not depend on a rollout's files or setup; warm pools key on it. */
export type SandboxShape = Pick<SandboxRequest, 'image' | 'workdir' | 'env' | 'limits' | 'agentUser'>;

/**
 * One container per sandbox, hardened as far as Docker allows: no network, read-only root, private /tmp, the
 * workspace on its own volume, all capabilities dropped except the few root setup needs, no-new-privileges,
 * memory/pids/cpu limits, and agent commands as uid 65534. Images are never pulled.
 */
export class DockerBackend implements SandboxBackend {
  readonly name = 'docker' as const;
  readonly host: string;
  readonly docker: Docker;
  private readonly live = new Set<DockerSandbox>();
  /** The image's own files at a workdir, per image and workdir (image content does not change under a tag's id). */
  private readonly imageFiles = new Map<string, Promise<ImageWorkdirFiles>>();
  private warned = false;
  private noBinary = false;
  /** False once a bind mount of the supervisor was refused (a daemon whose files are not this machine's). */
  private bindWorks: boolean;

  constructor(private readonly options: DockerBackendOptions = {}) {
    this.docker = options.docker ?? dockerFromUrl(options.url, options.tlsDir);
    this.host = describeDockerHost(options.url);
    // The supervisor can be bind-mounted only from a daemon on this machine; others get it copied in.
    this.bindWorks = this.host.startsWith('unix:');
  }

  /** Sandboxes started by this backend and not yet stopped. */
  get activeCount(): number {
    return this.live.size;
  }

  async start(request: SandboxRequest, options: { signal?: Cancellation } = {}): Promise<Sandbox> {
    const sandbox = await this.launch(request, request.labels, options.signal);
    try {
      await this.provision(sandbox, request, options.signal);
      return sandbox;
    } catch (err) {
      await sandbox.stop();
      throw err;
    }
  }

  /** Creates and starts an empty sandbox of a shape; `provision` then makes it a given rollout's. */
  async launch(shape: SandboxShape, labels: Record<string, string>, signal?: Cancellation): Promise<DockerSandbox> {
    throwIfCancelled(signal);
    const id = `coevolve-${randomUUID().slice(0, 13)}`;
    const allLabels = { ...ownerLabels(), ...this.options.labels, ...labels, [sandboxLabel]: id, 'coevolve.backend': 'docker' };
    const { limits } = shape;
    try {
      // A tmpfs-backed volume: owned by the agent user from the start, size-limited, and gone with the volume.
      await this.docker.createVolume({
        Name: id,
        Labels: allLabels,
        DriverOpts: { type: 'tmpfs', device: 'tmpfs', o: `size=${limits.diskMb}m,uid=${agentUid},gid=${agentUid},mode=0755` },
      });
      const binary = await this.channelBinaryOrWarn();
      const create = (bind: boolean): Promise<Docker.Container> =>
        this.docker.createContainer(containerSpec({ id, shape, labels: allLabels, channelBinary: binary && bind ? binary : undefined, ...(this.options.ulimits ? { ulimits: this.options.ulimits } : {}) }));
      let container: Docker.Container;
      try {
        try {
          container = await create(binary !== undefined && this.bindWorks);
        } catch (err) {
          // A daemon that does not see this machine's files refuses the bind; copy the supervisor in instead.
          if (!(binary !== undefined && this.bindWorks && isBindRefusal(err))) throw err;
          this.bindWorks = false;
          container = await create(false);
        }
      } catch (err) {
        await this.docker.getVolume(id).remove().catch(() => undefined);
        throw err;
      }
      const sandbox = new DockerSandbox(id, container, this.docker, this.host, shape, () => this.live.delete(sandbox));
      this.live.add(sandbox);
      try {
        await container.start();
        if (shape.agentUser === 'root') await sandbox.recordSystemProcesses();
      } catch (err) {
        await sandbox.stop();
        throw err;
      }
      // A root agent (Harbor's model) can signal the supervisors: one it ends ends the rollout as its own failure.
      if (binary) await this.attachChannels(sandbox, binary);
      return sandbox;
    } catch (err) {
      throw this.explain(err, shape.image);
    }
  }

  /**
   * A new lease of a scrubbed container (WarmPool): a new sandbox object with new channels, the container and its
   * volume kept. Undefined, with the container removed, when its channels cannot start again.
   */
  async relaunch(old: DockerSandbox): Promise<DockerSandbox | undefined> {
    const binary = await this.channelBinaryOrWarn();
    const sandbox = new DockerSandbox(old.id, old.container, this.docker, this.host, old.shape, () => this.live.delete(sandbox));
    sandbox.uses = old.uses + 1;
    sandbox.fingerprint = old.fingerprint;
    this.live.add(sandbox);
    if (binary) await this.attachChannels(sandbox, binary).catch(() => undefined);
    if (sandbox.hasChannel) return sandbox;
    await sandbox.destroy();
    this.live.delete(sandbox);
    return undefined;
  }

  /** The supervisor binary, or undefined (and said once) when the channel is off or cannot be built here. */
  private async channelBinaryOrWarn(): Promise<string | undefined> {
    if (this.options.channel === false || this.noBinary) return undefined;
    try {
      return await channelBinary();
    } catch (err) {
      // Not tried again by this backend: a compiler that failed once fails the same way for every sandbox.
      this.noBinary = true;
      this.warnOnce(`the command channel is not available (${(err as Error).message}); every command runs as its own docker exec, which is much slower`);
      return undefined;
    }
  }

  /**
   * Starts the sandbox's two channels (agent and root) side by side. When they cannot start (an image without
   * /bin/sh for the copy, a foreign architecture), the sandbox runs each command as its own exec, as before.
   */
  private async attachChannels(sandbox: DockerSandbox, binary: string): Promise<void> {
    const name = `sandbox ${sandbox.id}`;
    const hooks = { onDead: (reason: string) => sandbox.channelDied(reason), onStuck: () => sandbox.removeAsLastResort() };
    const agentUidOf = sandbox.shape.agentUser === 'root' ? 0 : undefined;
    let channels: DockerChannels | undefined;
    try {
      if (!this.bindWorks) await injectChannel(sandbox.container, binary);
      // Once more after a failure: under heavy load an exec can fail to start once without the image being at fault.
      const start = (role: 'agent' | 'root'): Promise<ChannelClient> =>
        startDockerChannel(this.docker, sandbox.container, role, name, hooks, agentUidOf).catch((err: unknown) => {
          if (isConnectionError(err)) throw err;
          return startDockerChannel(this.docker, sandbox.container, role, name, hooks, agentUidOf);
        });
      const [agent, root] = await Promise.allSettled([start('agent'), start('root')]);
      if (agent.status === 'rejected' || root.status === 'rejected') {
        for (const r of [agent, root]) if (r.status === 'fulfilled') r.value.close();
        throw (agent.status === 'rejected' ? agent.reason : (root as PromiseRejectedResult).reason) as Error;
      }
      channels = { agent: agent.value, root: root.value };
    } catch (err) {
      if (isConnectionError(err)) throw err;
      // Removed while its channels started (a pool disposed meanwhile): nothing to say about the image.
      if (sandbox.isStopped) return;
      this.warnOnce(`the command channel could not start in image "${sandbox.shape.image}" (${(err as Error).message}); its commands run as one docker exec each, which is much slower`);
      return;
    }
    sandbox.useChannels(channels);
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    (this.options.warn ?? ((m: string) => process.stderr.write(`coevolve: ${m}\n`)))(message);
  }

  /** Writes the rollout's files and runs its setup; afterwards the whole workspace belongs to the agent user. */
  async provision(sandbox: DockerSandbox, request: SandboxRequest, signal?: Cancellation): Promise<void> {
    throwIfCancelled(signal);
    try {
      if (request.imageWorkdir !== false) await this.seedFromImage(sandbox, request, signal);
      if (request.files.length > 0) await sandbox.putFiles(request.files);
      await runSetup(sandbox, request, signal);
      if (request.setup.length > 0) {
        // Setup runs as root; the agent must still be able to edit what it made.
        await sandbox.exec(['chown', '-hR', `${agentUid}:${agentUid}`, '.'], { as: 'setup', signal });
      }
    } catch (err) {
      throw this.explain(err, request.image);
    }
  }

  /**
   * The workspace starts with the image's own files at the workdir, as a container of the image would show them
   * (the workspace volume hides them). The verifier's fresh sandbox skips this (`imageWorkdir: false`).
   */
  private async seedFromImage(sandbox: DockerSandbox, request: SandboxRequest, signal?: Cancellation): Promise<void> {
    const key = `${request.image}\0${request.workdir}`;
    let files = this.imageFiles.get(key);
    if (!files) {
      files = readImageWorkdir(this.docker, request.image, request.workdir, { ...ownerLabels(), ...this.options.labels }, request.limits.diskMb * 1024 * 1024);
      this.imageFiles.set(key, files);
      files.catch(() => this.imageFiles.delete(key));
    }
    const { tar } = await files;
    if (tar) await seedWorkspaceInside(sandbox, tar, request.workdir, request.agentUser === 'root', signal);
  }

  /** Removes containers and volumes whose owner is no longer alive (default: owner pid not running on this machine). */
  async reap(isAlive: (labels: Record<string, string>) => boolean = ownerIsAlive): Promise<{ containers: number; volumes: number }> {
    const filters = { label: [`${managedLabel}=1`] };
    let containers = 0;
    let volumes = 0;
    for (const info of await this.docker.listContainers({ all: true, filters })) {
      if (isAlive(info.Labels ?? {})) continue;
      await this.docker.getContainer(info.Id).remove({ force: true, v: true }).then(() => containers++, ignoreNotFound);
    }
    const listed = await this.docker.listVolumes({ filters });
    for (const volume of listed.Volumes ?? []) {
      if (isAlive(volume.Labels ?? {})) continue;
      await this.docker.getVolume(volume.Name).remove().then(() => volumes++, ignoreNotFound);
    }
    return { containers, volumes };
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.stop()));
  }

  private explain(err: unknown, image: string): unknown {
    const e = err as { statusCode?: number; message?: string };
    if (e?.statusCode === 404 && /no such image/i.test(e.message ?? '')) return new SandboxImageMissingError(image, this.host);
    if (isConnectionError(err)) return new SandboxHostLostError(this.host, err);
    return err;
  }
}

/** The daemon could not bind-mount a path of this machine (it runs elsewhere, e.g. in a VM). */
function isBindRefusal(err: unknown): boolean {
  const e = err as { statusCode?: number; message?: string };
  return (e?.statusCode === 400 || e?.statusCode === 500) && /bind|mount|no such file|not exist/i.test(e.message ?? '');
}

function ignoreNotFound(err: unknown): void {
  const code = (err as { statusCode?: number }).statusCode;
  if (code !== 404 && code !== 409) throw err;
}
