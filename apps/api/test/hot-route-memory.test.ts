// Unauthenticated large bodies cost the gateway nothing: 30 connections each announcing
// 19 MB with no valid key get 401 (and `connection: close`) as soon as their head is
// read, before they send a byte of it; they then try to send it all, and the process's
// resident memory (read from /proc, the gateway running as its own process) grows by
// less than 50 MB. Both doors: the socket path and node:http with Fastify.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { seedDataDir, testDatabase, type TestDatabase, hotStoreEnv } from './support/gateway.ts';
import { rssBytes, settledRss, spawnGateway } from './support/process.ts';
import { chatRequest, drainedOrClosed, openRaw, type RawConnection } from './support/raw-http.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

const CONNECTIONS = 30;
const BODY_BYTES = 19_000_000;
const CHUNK = Buffer.alloc(1024 * 1024, 'x');

let vendor: MockVendor;
let db: TestDatabase;
beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase();
});
afterAll(async () => {
  await vendor.close();
  await db.drop();
});



/** Writes `bytes` of body in 1 MiB pieces, waiting for the socket to drain between them. */
async function sendBody(c: RawConnection, bytes: number): Promise<void> {
  for (let sent = 0; sent < bytes && !c.closed(); sent += CHUNK.length) {
    const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - sent));
    if (!c.socket.write(piece)) {
      await drainedOrClosed(c.socket);
    }
  }
}

describe.each(['on', 'off'])('FAST_PATH=%s', (fastPath) => {
  it(`answers ${CONNECTIONS} unauthenticated ${BODY_BYTES / 1e6} MB bodies with 401 before reading them, and RSS grows < 50 MB`, { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-rss-'));
    seedDataDir(dataDir);
    const gw = await spawnGateway({
      DATA_DIR: dataDir,
      ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
      OPENAI_BASE_URL: vendor.url,
      OPENAI_API_KEY: PLATFORM_KEY,
      FAST_PATH: fastPath,
      ...(db.url ? hotStoreEnv(db.url) : {}),
    });
    try {
      const port = Number(new URL(gw.url).port);
      const pid = gw.proc.pid!;
      // warm the route once so lazily built code is not counted
      const warm = await openRaw(port);
      warm.socket.write(chatRequest({ key: 'sk-opt-wrong', body: '{}' }));
      await expect.poll(() => warm.answers.length).toBe(1);
      warm.socket.destroy();
      const baseline = await settledRss(pid);
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
      try {
        const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => openRaw(port)));
        const keys = [undefined, 'sk-opt-not-a-real-key', 'sk-proj-not-ours'];
        conns.forEach((c, i) => c.socket.write(chatRequest({ key: keys[i % keys.length], body: '', contentLength: BODY_BYTES })));
        // every one is answered before a single body byte is sent
        await expect.poll(() => conns.every((c) => c.answers.length === 1), { timeout: 5000 }).toBe(true);
        expect(conns.map((c) => c.answers[0]!.status)).toEqual(conns.map(() => 401));
        expect(conns.every((c) => c.answers[0]!.headers.connection === 'close')).toBe(true);
        // the clients send their bodies anyway; the gateway reads none of it and closes
        await Promise.all(conns.map((c) => sendBody(c, BODY_BYTES)));
        await expect.poll(() => conns.every((c) => c.closed()), { timeout: 10_000 }).toBe(true);
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, rssBytes(pid));
      const grownMb = (peak - baseline) / 1024 / 1024;
      console.log(`FAST_PATH=${fastPath}: RSS ${Math.round(baseline / 1048576)} MB -> peak ${Math.round(peak / 1048576)} MB (+${grownMb.toFixed(1)} MB) over ${CONNECTIONS} x ${BODY_BYTES} bytes`);
      expect(grownMb).toBeLessThan(50);
    } finally {
      gw.kill('SIGTERM');
      await gw.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
