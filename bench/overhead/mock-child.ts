// The mock vendor as its own process, so its CPU time is measured apart from the load generator's
// and the proxies'. argv[2] is JSON {latencyMs, chunkDelayMs}; prints {"url","port"} on stdout.
import { startOpenAIMock } from '@optimizer/mock-providers';

const opts = JSON.parse(process.argv[2] ?? '{}') as { latencyMs?: number; chunkDelayMs?: number };
const mock = await startOpenAIMock({ host: '127.0.0.1', latencyMs: opts.latencyMs ?? 0, chunkDelayMs: opts.chunkDelayMs ?? 0, record: false });
process.stdout.write(`${JSON.stringify({ url: mock.url, port: mock.port })}\n`);

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 1000).unref();
  void mock.close().finally(() => process.exit(0));
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
