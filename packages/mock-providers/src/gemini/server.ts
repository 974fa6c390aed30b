// The Gemini API mock: generateContent and streamGenerateContent under /v1beta, the key
// in `x-goog-api-key` (or `?key=`), Google's error envelope, recording, latency, faults.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { MAGIC_MODELS, planFault } from '../faults.ts';
import { delay, listen, parseJson, readBody, sendJson, untilAborted } from '../http.ts';
import type { MockVendor } from '../types.ts';
import { authError, faultError, INVALID_JSON, internalError, methodNotFound, payloadErrors, type GoogleError } from './errors.ts';
import { normalize, parseRequest } from './parse.ts';
import { buildReply } from './reply.ts';
import type { GenerateContentRequest } from './request.ts';
import { checkRequest } from './rules.ts';
import { embedBody, validateEmbed } from './embeddings.ts';
import { eventSequence, writeStream } from './stream.ts';
import { modelList, responseBody, type ResponseMeta } from './wire.ts';
import { exchangeFor as baseExchange, newState, vendorHandle, type ServerState } from '../vendor.ts';

export interface GeminiMockOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** When set, the key must come in `x-goog-api-key` or `?key=`: none → 403, a wrong one → 400 API_KEY_INVALID. */
  apiKey?: string;
  /** Delay before every response. */
  latencyMs?: number;
  /** Delay between streamed events. */
  chunkDelayMs?: number;
  /** Keep a log of requests in `vendor.requests` (default true). */
  record?: boolean;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  signal: AbortSignal;
  destroy: () => void;
}

const GENERATE = /^\/(v1|v1beta|v1alpha)\/(?:models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent)$/;
const EMBED = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;
const LIST_MODELS = /^\/(v1|v1beta|v1alpha)\/models$/;

export async function startGeminiMock(opts: GeminiMockOptions = {}): Promise<MockVendor> {
  const host = opts.host ?? '127.0.0.1';
  const state = newState();
  const server = createServer((req, res) => {
    handle(exchangeFor(req, res, state), state, opts).catch(() => {
      if (!res.headersSent) sendError(res, internalError());
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port ?? 0, host);
  return vendorHandle(server, state, host, port, '/v1beta');
}

function exchangeFor(req: IncomingMessage, res: ServerResponse, state: ServerState): Exchange {
  return { ...baseExchange(req, res, state), url: new URL(req.url ?? '/', 'http://mock') };
}

async function handle(ex: Exchange, state: ServerState, opts: GeminiMockOptions): Promise<void> {
  const { req, res, url } = ex;
  const method = req.method ?? 'GET';
  const rawBody = await readBody(req);
  const parsed = rawBody === '' ? { ok: true as const, value: {} } : parseJson(rawBody);
  if (opts.record !== false) {
    state.requests.push({ method, path: url.pathname, headers: req.headers, body: parsed.ok && rawBody !== '' ? parsed.value : undefined, rawBody, receivedAt: Date.now() });
  }
  if (!(await delay(opts.latencyMs ?? 0, ex.signal))) return;
  const header = req.headers['x-goog-api-key'];
  const denied = opts.apiKey === undefined ? null : authError(typeof header === 'string' ? header : (url.searchParams.get('key') ?? undefined), opts.apiKey);
  if (denied) return sendError(res, denied);

  const route = GENERATE.exec(url.pathname);
  if (method === 'POST' && route) {
    if (!parsed.ok) return sendError(res, INVALID_JSON);
    const violations = parseRequest(parsed.value);
    if (violations.length > 0) return sendError(res, payloadErrors(violations));
    const request = normalize('GenerateContentRequest', parsed.value as Record<string, unknown>) as GenerateContentRequest;
    const invalid = checkRequest(request);
    if (invalid) return sendError(res, invalid);
    const stream = route[3] === 'streamGenerateContent';
    return generate(ex, request, decodeURIComponent(route[2]!), stream, state, opts);
  }
  const embed = EMBED.exec(url.pathname);
  if (method === 'POST' && embed) {
    if (!parsed.ok) return sendError(res, INVALID_JSON);
    return embedContent(ex, parsed.value, decodeURIComponent(embed[2]!), embed[3] === 'batchEmbedContents', embed[1]!, state);
  }
  if (method === 'GET' && LIST_MODELS.test(url.pathname)) return sendJson(res, 200, modelList(MAGIC_MODELS), vendorHeaders());
  return sendError(res, methodNotFound());
}

async function generate(ex: Exchange, request: GenerateContentRequest, model: string, stream: boolean, state: ServerState, opts: GeminiMockOptions): Promise<void> {
  const plan = planFault(model, stream, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, faultError(plan.error.status, model, plan.error.headers?.['retry-after']));
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;

  state.seq++;
  const reply = buildReply(request, state.script);
  const meta: ResponseMeta = { model, responseId: `mockResp${String(state.seq).padStart(8, '0')}` };
  if (!stream) {
    const candidates = reply.candidates.map((c) => ({ ...(c.parts.length > 0 ? { content: { parts: c.parts, role: 'model' } } : {}), finishReason: c.finishReason, index: c.index }));
    return sendJson(ex.res, 200, responseBody(candidates, reply.usage, meta), vendorHeaders());
  }
  await writeStream(ex.res, eventSequence(reply, meta), {
    framing: ex.url.searchParams.get('alt') === 'sse' ? 'sse' : 'array',
    chunkDelayMs: opts.chunkDelayMs ?? 0,
    signal: ex.signal,
    headers: vendorHeaders(),
    destroy: ex.destroy,
    ...(plan.kind === 'cut' ? { cut: plan.cut } : {}),
  });
}

async function embedContent(ex: Exchange, body: unknown, model: string, batch: boolean, version: string, state: ServerState): Promise<void> {
  const plan = planFault(model, false, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, faultError(plan.error.status, model, plan.error.headers?.['retry-after']));
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;
  const checked = validateEmbed(body, model, batch, version);
  if ('status' in checked) return sendError(ex.res, checked);
  state.seq++;
  return sendJson(ex.res, 200, embedBody(checked), vendorHeaders());
}

function vendorHeaders(): Record<string, string> {
  return { 'content-type': 'application/json; charset=UTF-8', server: 'scaffolding on HTTPServer2', 'server-timing': 'gfet4t7; dur=1', vary: 'Origin, X-Origin, Referer' };
}

function sendError(res: ServerResponse, error: GoogleError): void {
  sendJson(res, error.status, error.body, { ...vendorHeaders(), ...error.headers });
}
