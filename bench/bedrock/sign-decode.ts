// CPU per Bedrock call of SigV4 signing and event-stream decoding, interleaved in rounds: the
// gateway's signer (apps/api/src/providers/bedrock/sign.ts, on @smithy/signature-v4) and its
// event-stream decoder (eventstream.ts: our framing, @smithy/eventstream-codec per message) on a
// recorded stream. The hand-written signer and decoder they replaced are measured at the commits
// before each switch (docs/decisions.md, "Bedrock on AWS's libraries").
//
//   node bench/bedrock/sign-decode.ts [--iterations 20000] [--rounds 5]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EventStreamDecoder } from '../../apps/api/src/providers/bedrock/eventstream.ts';
import { signRequest } from '../../apps/api/src/providers/bedrock/sign.ts';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '5' } } });
const n = Number(values.iterations);
const rounds = Number(values.rounds);

// a typical Converse request: a system prompt, a few turns, ~2 KB of JSON
const body = JSON.stringify({
  system: [{ text: 'You are a helpful assistant. '.repeat(10) }],
  messages: Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ text: `Turn ${i}: ${'lorem ipsum dolor sit amet '.repeat(10)}` }] })),
  inferenceConfig: { maxTokens: 512, temperature: 0.2 },
});
const req = { method: 'POST', host: 'bedrock-runtime.us-east-1.amazonaws.com', path: '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream', headers: { 'content-type': 'application/json' }, body };
const credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const ctx = () => ({ credentials, region: 'us-east-1', service: 'bedrock', date: new Date(), contentSha256Header: true });

// a recorded ConverseStream answer, arriving in reads of 1 KiB
const stream = readFileSync(new URL('../../apps/api/src/providers/bedrock/fixtures/converse-stream-tools.bin', import.meta.url));
const reads: Buffer[] = [];
for (let i = 0; i < stream.length; i += 1024) reads.push(stream.subarray(i, i + 1024));

function cpu(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / n;
}
async function cpuAsync(f: () => Promise<void>): Promise<number> {
  const t0 = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / n;
}

const sign = () => cpuAsync(async () => {
  for (let i = 0; i < n; i++) await signRequest(req, ctx());
});
const decode = (make: () => { push(b: Buffer): unknown[] }) => cpu(() => {
  for (let i = 0; i < n; i++) {
    const d = make();
    for (const r of reads) d.push(r);
  }
});

const r = { sign: [] as number[], decode: [] as number[] };
await sign();
decode(() => new EventStreamDecoder()); // warm-up
for (let i = 0; i < rounds; i++) {
  r.sign.push(await sign());
  r.decode.push(decode(() => new EventStreamDecoder()));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`CPU per call, µs (median of ${rounds} rounds of ${n}; ${body.length} B body; ${stream.length} B stream in ${reads.length} reads):`);
console.log(`  sign    @smithy/signature-v4 ${med(r.sign).toFixed(2)}`);
console.log(`  decode  our framing + @smithy/eventstream-codec ${med(r.decode).toFixed(2)}`);
