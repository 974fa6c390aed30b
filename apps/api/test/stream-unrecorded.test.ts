// A stream whose call the metering write-ahead file refuses (a full disk). Its headers and
// chunks are already out, so no 500 can be sent: it must end at once with an error event in
// place of the final chunk and [DONE], leave its Idempotency-Key free for the retry, and not
// hang the client until a socket timeout (it did on the Fastify door: the error handler could
// not answer a sent reply, and the response was never ended).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

// Both doors in every run: the bug was the Fastify door's, and the socket path answers the same way.
describe.each([
  ['the socket path', 'on'],
  ['node:http and Fastify', 'off'],
])('a stream the write-ahead file refuses, through %s', (_door, fastPath) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { FAST_PATH: fastPath } });
  });
  afterAll(async () => {
    await rig.close();
  });

  const streamed = (key: string) =>
    fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...authed(rig.tenant.api_key), 'idempotency-key': key },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'tell me a story' }], stream: true }),
      signal: AbortSignal.timeout(10_000),
    });

  it('ends with an error event and no [DONE], and its key is free for the retry', async () => {
    const meter = rig.gw.services.meter;
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    // the disk refuses the call's line: what the meter's waiters are told then
    meter.written = () => Promise.reject(full);
    let first: Response;
    try {
      first = await streamed('unrecorded-stream-1');
      expect(first.status).toBe(200); // the headers went out before the answer was metered
      const text = await first.text(); // ends: a hang would fail the 10 s timeout
      expect(text).toContain('data: {"error":');
      expect(text).toMatch(/"code":"internal"/);
      expect(text).not.toContain('[DONE]');
      expect(text).not.toContain('"optimizer"');
    } finally {
      delete (meter as { written?: unknown }).written; // the prototype's again
    }
    // the retry is served anew, not replayed from the unrecorded attempt
    const retry = await streamed('unrecorded-stream-1');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const again = await retry.text();
    expect(again).toContain('[DONE]');
    expect(again).toContain('"optimizer"');
  });
});
