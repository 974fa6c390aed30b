// Redis round trips of one db index, told apart from the commands a script runs: MONITOR prints
// `<time> [<db> <client address>] "cmd" …` for what a client sent and `[<db> lua] "cmd" …` for what
// a script called. INFO commandstats counts both alike and every db's. MONITOR costs Redis CPU, so
// it runs only in a sample window of its own, never while CPU is measured.
import { connect } from 'node:net';

export interface RedisSample {
  /** Commands clients sent on the db (round trips; a pipeline's commands each count). */
  sent: number;
  /** Commands scripts ran (inside one round trip each). */
  inScripts: number;
  byCommand: Record<string, number>;
}

const LINE = /^\+\d+\.\d+ \[(\d+) ([^\]]+)\] "([^"]+)"/;

/** Starts MONITOR; `stop()` ends it and returns what db `db` received meanwhile. */
export async function monitorRedis(host: string, port: number, db: number): Promise<{ stop(): Promise<RedisSample> }> {
  const socket = connect({ host, port });
  const sample: RedisSample = { sent: 0, inScripts: 0, byCommand: {} };
  let buf = '';
  let started!: () => void;
  const ready = new Promise<void>((resolve, reject) => {
    started = resolve;
    socket.once('error', reject);
  });
  socket.on('data', (b: Buffer) => {
    buf += b.toString('latin1');
    let nl: number;
    while ((nl = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 2);
      if (line === '+OK') started();
      const m = LINE.exec(line);
      if (!m || Number(m[1]) !== db) continue;
      const cmd = m[3]!.toLowerCase();
      if (m[2] === 'lua') sample.inScripts++;
      else {
        sample.sent++;
        sample.byCommand[cmd] = (sample.byCommand[cmd] ?? 0) + 1;
      }
    }
  });
  socket.write('MONITOR\r\n');
  await ready;
  return {
    stop: () =>
      new Promise<RedisSample>((resolve) => {
        socket.once('close', () => resolve(sample));
        socket.end('QUIT\r\n');
        setTimeout(() => socket.destroy(), 1000).unref();
      }),
  };
}
