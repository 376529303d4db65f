import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';

/**
 * dockerode, evaluated on first use: with ssh2 and the gRPC stack it brings it is ~1.7 MB of modules, and a command
 * that never talks to Docker (view, validate, report, --help) should not evaluate them at start. A require() in a
 * function is bundled like an import but runs when called (esbuild keeps CommonJS modules behind a lazy wrapper).
 */
const dockerode = (): typeof import('dockerode') => require('dockerode') as typeof import('dockerode');

/**
 * A Docker client for one endpoint URL. Without a URL, dockerode reads DOCKER_HOST (so Podman's compatible socket
 * works too) and falls back to the local socket. tcp:// uses TLS when a folder with ca.pem/cert.pem/key.pem is given.
 */
export function dockerFromUrl(url?: string, tlsDir?: string): Docker {
  const Docker = dockerode();
  if (!url) return new Docker();
  const parsed = new URL(url);
  switch (parsed.protocol) {
    case 'unix:':
      return new Docker({ socketPath: decodeURIComponent(parsed.pathname) });
    case 'npipe:':
      return new Docker({ socketPath: `//./pipe/${parsed.pathname.replace(/^\/+/, '').replace(/^pipe\//, '')}` });
    case 'tcp:': {
      const tls = tlsDir
        ? { ca: readFileSync(join(tlsDir, 'ca.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')), key: readFileSync(join(tlsDir, 'key.pem')) }
        : {};
      return new Docker({ host: parsed.hostname, port: Number(parsed.port || (tlsDir ? 2376 : 2375)), protocol: tlsDir ? 'https' : 'http', ...tls });
    }
    case 'ssh:':
      return new Docker({
        host: parsed.hostname,
        port: Number(parsed.port || 22),
        username: decodeURIComponent(parsed.username) || undefined,
        protocol: 'ssh',
        sshOptions: { agent: process.env.SSH_AUTH_SOCK },
      } as Docker.DockerOptions);
    default:
      throw new Error(`unsupported Docker host URL "${url}": use unix://, tcp:// (with a TLS folder), ssh:// or npipe://`);
  }
}

/** How a host is named in results and errors. */
export function describeDockerHost(url?: string): string {
  return url ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
}

/** True for errors that mean the daemon cannot be reached (as opposed to the daemon refusing a request). */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; statusCode?: number; message?: string } | undefined;
  if (!e) return false;
  if (e.statusCode !== undefined) return false;
  return ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'ESOCKETTIMEDOUT'].includes(e.code ?? '')
    || /socket hang up|connect E|ECONNRESET|EPIPE/.test(e.message ?? '');
}
