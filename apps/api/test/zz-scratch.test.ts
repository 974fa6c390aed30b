import { it } from 'vitest';
import { startRig } from './support/vendor.ts';
import { openRaw, sleep } from './support/raw-http.ts';
it('scratch', async () => {
  for (const fp of ['on', 'off']) {
    const rig = await startRig({ env: { FAST_PATH: fp } });
    const port = Number(new URL(rig.gw.url).port);
    const body = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":""}]}';
    const c = await openRaw(port);
    c.socket.on('end', () => console.log(fp, 'client got end'));
    c.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${rig.tenant.api_key}\r\nContent-Length: ${body.length - 3}\r\nExpect: bogus\r\n\r\n${body}`);
    await sleep(300);
    console.log(fp, 'before FIN', c.answers.map((a) => a.status), c.closed());
    c.socket.end();
    await sleep(500);
    console.log(fp, 'after FIN', c.answers.map((a) => a.status), c.closed(), JSON.stringify(c.rest().toString()));
    c.socket.destroy();
    await rig.close();
  }
});
