import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { startExec } from '../../../src/sandbox/docker/execStart.js';
import { needService } from '../../support/services.js';
import { busyboxImage, dockerProblem, testLabels } from './support.js';

/** Sockets this process holds open for an exec's start request (node's own list of what keeps it alive). */
function openStartSockets(execId: string): Socket[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is Socket => (h as { _httpMessage?: { path?: string } })._httpMessage?.path === `/exec/${execId}/start`);
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 300));

describe('docker exec starts that dockerd refuses', function () {
  this.timeout(60_000);
  const docker = new Docker();
  let container: Docker.Container;

  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
  });

  beforeEach(async () => {
    container = await docker.createContainer({ Image: busyboxImage, Cmd: ['sleep', '300'], NetworkDisabled: true, Labels: testLabels });
    await container.start();
  });

  afterEach(async () => {
    await container.remove({ force: true }).catch(() => undefined);
  });

  // The exec is made, then its container ends before the start, as when a pool is disposed while it starts a
  // sandbox's channels. A finished integration run once hung for good on two such sockets.
  const refusedExec = async (): Promise<Docker.Exec> => {
    const exec = await container.exec({ Cmd: ['cat'], AttachStdin: true, AttachStdout: true, AttachStderr: true });
    await container.kill();
    return exec;
  };

  it('the fault is real: a bare hijacked start that fails leaves its socket open, keeping the process alive', async () => {
    const exec = await refusedExec();
    await assert.rejects(exec.start({ hijack: true, stdin: true }), /no such exec|not running|HTTP code/);
    await settle();
    const leaked = openStartSockets(exec.id);
    assert.equal(leaked.length, 1, 'dockerode left the refused request open');
    for (const s of leaked) s.destroy();
  });

  it('startExec rejects the same way and leaves nothing open', async () => {
    const exec = await refusedExec();
    await assert.rejects(startExec(exec, { stdin: true }), /no such exec|not running|HTTP code/);
    await settle();
    assert.deepEqual(openStartSockets(exec.id), []);
  });

  it('startExec still hands over a working stream when the start succeeds', async () => {
    const exec = await container.exec({ Cmd: ['cat'], AttachStdin: true, AttachStdout: true, AttachStderr: true });
    const stream = await startExec(exec, { stdin: true });
    const out: Buffer[] = [];
    const stdout = new PassThrough();
    stdout.on('data', (c: Buffer) => out.push(c));
    docker.modem.demuxStream(stream, stdout, stdout);
    await new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.end('through the exec\n');
    });
    assert.equal(Buffer.concat(out).toString(), 'through the exec\n');
    assert.equal((await exec.inspect()).ExitCode, 0);
  });
});
