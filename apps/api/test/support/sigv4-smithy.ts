// SigV4 on AWS's maintained signer (@smithy/signature-v4), with node:crypto as its hash: the
// same request description and result as the gateway's own signer (src/providers/bedrock/sigv4.ts),
// which the differential test (test/providers/bedrock-smithy-differential.test.ts) and
// bench/bedrock/sign-decode.ts compare it with. Not on the call path: its `sign` is asynchronous
// and the adapters' buildRequest is not (docs/decisions.md, "Bedrock on AWS's libraries").
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SignableRequest, SigningContext } from '../../src/providers/bedrock/sigv4.ts';

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256 (or its HMAC, given a secret) in the shape the signer asks for. */
class NodeSha256 {
  readonly #h: Hash | Hmac;
  constructor(...args: [SourceData?]) {
    this.#h = args[0] === undefined ? createHash('sha256') : createHmac('sha256', bytes(args[0]));
  }
  update(data: Uint8Array): void {
    this.#h.update(data);
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.#h.digest());
  }
}

/** The query string as the signer takes it: decoded names to decoded values (repeated names as lists). */
function queryRecord(query: string | undefined): Record<string, string | string[]> {
  const out = new Map<string, string | string[]>(); // a Map: a name such as `valueOf` or `__proto__` is a parameter, not the prototype's
  if (!query) return {};
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  for (const p of query.split('&')) {
    if (p === '') continue;
    const eq = p.indexOf('=');
    const k = dec(eq === -1 ? p : p.slice(0, eq));
    const v = dec(eq === -1 ? '' : p.slice(eq + 1));
    const had = out.get(k);
    out.set(k, had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v]);
  }
  return Object.fromEntries(out);
}

/** Signs `req`: every header to send (host included) plus `authorization`, lowercase names. */
export async function signWithSmithy(req: SignableRequest, ctx: SigningContext): Promise<{ authorization: string; headers: Record<string, string> }> {
  const signer = new SignatureV4({ credentials: ctx.credentials, region: ctx.region, service: ctx.service, sha256: NodeSha256, applyChecksum: ctx.contentSha256Header === true });
  const headers: Record<string, string> = { host: req.host };
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.map((v) => v.trim()).join(',') : value;
  const [hostname, port] = req.host.split(':');
  const signed = await signer.sign(
    { method: req.method.toUpperCase(), protocol: 'https:', hostname: hostname!, port: port === undefined ? undefined : Number(port), path: req.path, query: queryRecord(req.query), headers, body: req.body },
    { signingDate: ctx.date },
  );
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.headers)) out[k.toLowerCase()] = v;
  return { authorization: out.authorization!, headers: out };
}
