// The Amazon Bedrock Runtime mock: POST /model/{modelId}/converse and
// /converse-stream, SigV4 verified against the credentials it was started with,
// bodies validated like Converse, answers in Converse JSON or the binary event
// stream, and the shared magic fault models (by model id).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { planFault, type FaultPlan } from '../faults.ts';
import { delay, listen, parseJson, sendJson, untilAborted } from '../http.ts';
import type { MockVendor } from '../types.ts';
import { errorHeaders, SERIALIZATION, SERVER_ERROR, throttled, UNAVAILABLE, unknownOperation, type AwsError } from './errors.ts';
import { buildReply } from './reply.ts';
import { verifySignature, type MockCredentials } from './sigv4.ts';
import { eventSequence, writeEventStream } from './stream.ts';
import { validateConverse, type ConverseRequest } from './validate.ts';
import { invalidModel, invokeEmbedding, isEmbeddingModel } from './embeddings.ts';
import { MAGIC_MODELS } from '../faults.ts';
import { exchangeFor, newState, vendorHandle, type Exchange, type ServerState } from '../vendor.ts';

export interface BedrockMockOptions {
  port?: number;
  host?: string;
  /** Signing credentials the mock verifies; without any, requests are not authenticated. */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** The same credentials as one `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]` string. */
  apiKey?: string;
  /** The region requests must be scoped to (default us-east-1). */
  region?: string;
  latencyMs?: number;
  chunkDelayMs?: number;
  record?: boolean;
}

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/;

function credentialsOf(opts: BedrockMockOptions): MockCredentials | null {
  if (opts.accessKeyId && opts.secretAccessKey) {
    return { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey, ...(opts.sessionToken ? { sessionToken: opts.sessionToken } : {}) };
  }
  if (!opts.apiKey) return null;
  const [accessKeyId, secretAccessKey, sessionToken] = opts.apiKey.split(':');
  if (!accessKeyId || !secretAccessKey) throw new Error('startBedrockMock: apiKey must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

export async function startBedrockMock(opts: BedrockMockOptions = {}): Promise<MockVendor> {
  const host = opts.host ?? '127.0.0.1';
  const creds = credentialsOf(opts);
  const region = opts.region ?? 'us-east-1';
  const state = newState();
  const server = createServer((req, res) => {
    handle(exchangeFor(req, res, state), state, opts, creds, region).catch(() => {
      if (!res.headersSent) sendError(res, SERVER_ERROR);
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port ?? 0, host);
  return vendorHandle(server, state, host, port, '');
}

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

async function handle(ex: Exchange, state: ServerState, opts: BedrockMockOptions, creds: MockCredentials | null, region: string): Promise<void> {
  const { req, res } = ex;
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const path = url.split('?')[0] ?? '/';
  const raw = await readRaw(req);
  const rawBody = raw.toString('utf8');
  const parsed = rawBody === '' ? { ok: false as const } : parseJson(rawBody);
  if (opts.record !== false) {
    state.requests.push({ method, path, headers: req.headers, body: parsed.ok ? parsed.value : undefined, rawBody, receivedAt: Date.now() });
  }
  if (!(await delay(opts.latencyMs ?? 0, ex.signal))) return;
  const route = ROUTE.exec(path);
  if (method !== 'POST' || !route) return sendError(res, unknownOperation(method, path));
  if (creds) {
    const denied = verifySignature({ method, url, headers: req.headers, body: raw }, creds, region, 'bedrock');
    if (denied) return sendError(res, denied);
  }
  if (!parsed.ok) return sendError(res, SERIALIZATION);
  if (route[2] === 'invoke') return invoke(ex, decodeURIComponent(route[1]!), parsed.value, state);
  const invalid = validateConverse(parsed.value);
  if (invalid) return sendError(res, invalid);
  return converse(ex, decodeURIComponent(route[1]!), route[2] === 'converse-stream', parsed.value as ConverseRequest, state, opts);
}

function faultError(plan: Extract<FaultPlan, { kind: 'error' }>): AwsError {
  if (plan.error.status === 429) return throttled(plan.error.headers?.['retry-after']);
  if (plan.error.status === 503) return UNAVAILABLE;
  return SERVER_ERROR;
}

async function converse(ex: Exchange, model: string, stream: boolean, request: ConverseRequest, state: ServerState, opts: BedrockMockOptions): Promise<void> {
  const plan = planFault(model, stream, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, faultError(plan));
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;

  state.seq++;
  let n = 0;
  const seq = state.seq;
  const reply = buildReply(request, state.script, () => `tooluse_mock${String(seq).padStart(6, '0')}_${n++}`);
  const headers = { 'x-amzn-requestid': requestId() };
  if (!stream) {
    const body = { output: { message: { role: 'assistant', content: reply.blocks } }, stopReason: reply.stopReason, usage: reply.usage, metrics: { latencyMs: 1 } };
    return sendJson(ex.res, 200, body, headers);
  }
  await writeEventStream(ex.res, eventSequence(reply, 1), {
    chunkDelayMs: opts.chunkDelayMs ?? 0,
    signal: ex.signal,
    headers,
    destroy: ex.destroy,
    ...(plan.kind === 'cut' ? { cut: plan.cut } : {}),
  });
}

/**
 * InvokeModel, for the embedding models (text models are served through Converse here).
 * The body's shape follows the model id, so a fault is asked for in the version slot of a
 * real id (`amazon.titan-embed-text-v2:rate-limited`) as well as by the bare magic name.
 */
async function invoke(ex: Exchange, model: string, body: unknown, state: ServerState): Promise<void> {
  const versioned = (MAGIC_MODELS as readonly string[]).find((m) => model.endsWith(`:${m}`));
  const plan = planFault(versioned ?? model, false, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, faultError(plan));
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;
  const magic = versioned !== undefined || (MAGIC_MODELS as readonly string[]).includes(model);
  if (!isEmbeddingModel(model) && !magic) return sendError(ex.res, invalidModel());
  const answer = invokeEmbedding(magic ? (model.startsWith('cohere.') ? 'cohere.embed-english-v3' : 'amazon.titan-embed-text-v2:0') : model, body, state.script);
  if ('status' in answer) return sendError(ex.res, answer);
  state.seq++;
  return sendJson(ex.res, 200, answer.body, { 'x-amzn-requestid': requestId(), 'x-amzn-bedrock-input-token-count': String(answer.inputTokens), 'x-amzn-bedrock-invocation-latency': '1' });
}

function requestId(): string {
  return randomUUID();
}

function sendError(res: ServerResponse, e: AwsError): void {
  sendJson(res, e.status, { message: e.message }, { ...errorHeaders(e), 'x-amzn-requestid': requestId() });
}

