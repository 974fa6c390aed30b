// A Gate (env.ts) as its own process, so the bytes of a busy path (the vendor's, a replica's Redis)
// do not wait on the suite's own event loop. argv[2] is the target `host:port`; prints
// {"port"} once listening; takes `cut`, `open`, `stall` and `resume` on stdin, one a line, and
// answers `ok <command>`. It exits when stdin closes (the suite ended, even by SIGKILL).
import { createInterface } from 'node:readline';
import { Gate } from './env.ts';

const [host, port] = (process.argv[2] ?? '').split(':');
const gate = new Gate({ host: host!, port: Number(port) });
await gate.open();
process.stdout.write(`${JSON.stringify({ port: gate.port })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (cmd) => {
  void (async () => {
    if (cmd === 'cut') await gate.cut();
    else if (cmd === 'open') await gate.open();
    else if (cmd === 'stall') gate.stall();
    else if (cmd === 'resume') gate.resume();
    else return void process.stdout.write(`unknown ${cmd}\n`);
    process.stdout.write(`ok ${cmd}\n`);
  })();
});
lines.on('close', () => process.exit(0));
