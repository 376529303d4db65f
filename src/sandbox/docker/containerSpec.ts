import type Docker from 'dockerode';
import { verifierPaths } from '../../core/ports/sandbox.js';
import type { SandboxShape } from './dockerBackend.js';
import { channelDir, channelPath } from './dockerChannel.js';
import { agentUid } from './tarFiles.js';

/** What a sandbox's container is made from. */
export interface ContainerSpecInput {
  /** The sandbox id: the container's name and its workspace volume's. */
  id: string;
  shape: SandboxShape;
  labels: Record<string, string>;
  /** The channel supervisor on this machine, bind-mounted read-only; undefined when it is copied in or off. */
  channelBinary?: string;
  ulimits?: { Name: string; Soft: number; Hard: number }[];
}

/**
 * The container of a sandbox: no network, every capability dropped but the few root needs for setup and the
 * verifier, no new privileges, memory, pids and CPU limited, a read-only root for non-root agents, and the
 * verifier's folders empty tmpfs mounts (the trust rule's I1). Pure, so the security settings are tested as data.
 */
export function containerSpec(at: ContainerSpecInput): Docker.ContainerCreateOptions {
  return {
    name: at.id,
    Image: at.shape.image,
    Entrypoint: ['sleep'],
    Cmd: ['2147483647'],
    // Root here so that root execs get the capabilities below: Docker gives an exec the capability sets
    // of the container's own user. Agent commands set their user per exec and get none.
    User: '0:0',
    WorkingDir: at.shape.workdir,
    Env: Object.entries(at.shape.env).map(([k, v]) => `${k}=${v}`),
    Labels: at.labels,
    NetworkDisabled: true,
    StopTimeout: 1,
    HostConfig: {
      Init: true,
      NetworkMode: 'none',
      // A root agent (Harbor's model, `sandbox.agentUser: root`) gets a writable root, as Harbor's containers have.
      ReadonlyRootfs: at.shape.agentUser !== 'root',
      // /tests and /logs/verifier: empty and root-owned while the agent runs (the trust rule's I1).
      Tmpfs: {
        '/tmp': `rw,nosuid,nodev,size=${at.shape.limits.diskMb}m,mode=1777`,
        [verifierPaths.tests]: `rw,nosuid,nodev,size=${at.shape.limits.diskMb}m,mode=0755`,
        [verifierPaths.logs]: `rw,nosuid,nodev,size=${at.shape.limits.diskMb}m,mode=0755`,
        // Harbor's agent-side folders: the agent's to write, collected into the rollout record after it ends.
        [verifierPaths.agentLogs]: `rw,nosuid,nodev,size=${at.shape.limits.diskMb}m,mode=0755,uid=${agentUid},gid=${agentUid}`,
        [verifierPaths.artifacts]: `rw,nosuid,nodev,size=${at.shape.limits.diskMb}m,mode=0755,uid=${agentUid},gid=${agentUid}`,
        // The command channel's supervisor: root-only, so the agent cannot even list it.
        [channelDir]: 'rw,exec,nosuid,nodev,size=4m,mode=0700',
      },
      // putArchive works into a volume under a read-only root; into a tmpfs it silently writes underneath.
      Mounts: [{ Type: 'volume', Source: at.id, Target: at.shape.workdir }, ...(at.channelBinary ? [{ Type: 'bind' as const, Source: at.channelBinary, Target: channelPath, ReadOnly: true }] : [])],
      CapDrop: ['ALL'],
      // Root (setup, verifier) must write and chown agent files and kill timed-out commands; the agent runs as
      // 65534 with no-new-privileges, so these never reach it. SETUID/SETGID: the agent channel's supervisor
      // (root) switches each agent command to 65534 itself.
      CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL', 'SETUID', 'SETGID'],
      SecurityOpt: ['no-new-privileges'],
      Memory: at.shape.limits.memoryMb * 1024 * 1024,
      MemorySwap: at.shape.limits.memoryMb * 1024 * 1024,
      PidsLimit: at.shape.limits.pids,
      NanoCpus: Math.round(at.shape.limits.cpus * 1e9),
      ...(at.ulimits ? { Ulimits: at.ulimits } : {}),
    },
  };
}
