// The loopback model server in its own process, as a real endpoint would be, so the benchmark's client and server
// do not share one event loop. Prints its base URL on the first line and exits when stdin closes.
import { startModelServer } from '../../test/support/modelServer.js';

async function main(): Promise<void> {
  const latencyMs = Number(process.argv[2] ?? '0');
  const server = await startModelServer({ latencyMs });
  server.handle('any', () => ({ content: 'ok' }));
  process.stdout.write(`${server.baseUrl}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
