// The OpenAI-compatible mock server: routing, recording, auth, latency, abort tracking.
// With a dialect it answers as an OpenAI-compatible vendor does (dialects.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { MAGIC_MODELS, planFault, type FaultState } from '../faults.ts';
import { closeServer, delay, listen, parseJson, readBody, sendJson, untilAborted } from '../http.ts';
import { isRecord } from '../guards.ts';
import type { MockVendor, OpenAIMockOptions, RecordedRequest, ScriptedReply } from '../types.ts';
import { azureAuthError, azureDeployment, dialects, type MockDialect } from './dialects.ts';
import { authError, INVALID_JSON, invalidUrl, type ApiError } from './errors.ts';
import { buildReply } from './reply.ts';
import { chunkSequence, writeSse } from './stream.ts';
import { validateChatRequest, type ChatRequest } from './validate.ts';
import { completionBody, modelList } from './wire.ts';

interface ServerState {
  requests: RecordedRequest[];
  script: Partial<ScriptedReply> | undefined;
  aborted: number;
  seq: number;
  faults: FaultState;
  closing: boolean;
}

/** Per-request context: `signal` aborts when the connection goes away early. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  signal: AbortSignal;
  /** Drops the connection on purpose (not counted as a client abort). */
  destroy: () => void;
}

export async function startOpenAIMock(opts: OpenAIMockOptions = {}): Promise<MockVendor> {
  const host = opts.host ?? '127.0.0.1';
  const dialect = opts.dialect ? dialects[opts.dialect] : undefined;
  const state: ServerState = { requests: [], script: undefined, aborted: 0, seq: 0, faults: { flakyCalls: 0 }, closing: false };
  const server = createServer((req, res) => {
    handle(exchangeFor(req, res, state), state, opts, dialect).catch(() => {
      if (!res.headersSent) sendError(res, { status: 500, body: { error: { message: 'mock failure', type: 'server_error', param: null, code: null } } });
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port ?? 0, host);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${dialect?.azure ? '/openai' : '/v1'}`,
    port,
    requests: state.requests,
    get aborted() {
      return state.aborted;
    },
    reset() {
      state.requests.length = 0;
      state.script = undefined;
      state.aborted = 0;
      state.seq = 0;
      state.faults.flakyCalls = 0;
    },
    script(next) {
      state.script = { ...next };
    },
    close() {
      state.closing = true;
      return closeServer(server);
    },
  };
}

function exchangeFor(req: IncomingMessage, res: ServerResponse, state: ServerState): Exchange {
  const controller = new AbortController();
  let droppedByUs = false;
  res.on('close', () => {
    if (res.writableFinished) return;
    if (!droppedByUs && !state.closing) state.aborted++;
    controller.abort();
  });
  const destroy = (): void => {
    droppedByUs = true;
    res.destroy();
  };
  return { req, res, signal: controller.signal, destroy };
}

async function handle(ex: Exchange, state: ServerState, opts: OpenAIMockOptions, dialect: MockDialect | undefined): Promise<void> {
  const { req, res } = ex;
  const method = req.method ?? 'GET';
  const [path = '/', query = ''] = (req.url ?? '/').split('?');
  const rawBody = await readBody(req);
  const parsed = rawBody === '' ? { ok: false as const } : parseJson(rawBody);
  if (opts.record !== false) {
    state.requests.push({ method, path, url: req.url ?? '/', headers: req.headers, body: parsed.ok ? parsed.value : undefined, rawBody, receivedAt: Date.now() });
  }
  if (!(await delay(opts.latencyMs ?? 0, ex.signal))) return;
  const denied = opts.apiKey === undefined ? null : dialect?.azure ? azureAuthError(req.headers['api-key'], opts.apiKey) : authError(req.headers.authorization, opts.apiKey);
  if (denied) return sendError(res, denied, dialect);

  // Azure names the model by the deployment in the path and needs the api-version query.
  const deployment = dialect?.azure ? azureDeployment(path) : null;
  const isChat = dialect?.azure ? deployment !== null && new URLSearchParams(query).has('api-version') : path.endsWith('/chat/completions');
  if (method === 'POST' && isChat) {
    if (!parsed.ok) return sendError(res, INVALID_JSON, dialect);
    let body = parsed.value;
    if (dialect && isRecord(body)) {
      const refused = dialect.validate?.(body);
      if (refused) return sendJson(res, refused.status, refused.body, refused.headers);
      body = { ...(dialect.toOpenAI ? dialect.toOpenAI(body) : body), ...(deployment !== null ? { model: deployment } : {}) };
    }
    const invalid = validateChatRequest(body);
    if (invalid) return sendError(res, invalid, dialect);
    return chatCompletion(ex, body as ChatRequest, state, opts, dialect);
  }
  if (method === 'GET' && path.endsWith('/models')) return sendJson(res, 200, modelList(MAGIC_MODELS), vendorHeaders(state));
  return sendError(res, invalidUrl(method, path), dialect);
}

async function chatCompletion(ex: Exchange, request: ChatRequest, state: ServerState, opts: OpenAIMockOptions, dialect: MockDialect | undefined): Promise<void> {
  const stream = request.stream === true;
  const plan = planFault(request.model, stream, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, plan.error, dialect);
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;

  state.seq++;
  const reply = buildReply(request, state.script, nextCallId(state, dialect));
  const meta = { id: `chatcmpl-mock${String(state.seq).padStart(8, '0')}`, created: Math.floor(Date.now() / 1000), model: request.model };
  const headers = vendorHeaders(state);
  if (!stream) {
    const body = completionBody(reply, meta);
    return sendJson(ex.res, 200, dialect?.completion ? dialect.completion(body, reply) : body, headers);
  }
  const includeUsage = request.stream_options?.include_usage === true;
  const chunks = chunkSequence(reply, meta, includeUsage);
  await writeSse(ex.res, dialect?.chunks ? dialect.chunks(chunks, reply, includeUsage) : chunks, {
    chunkDelayMs: opts.chunkDelayMs ?? 0,
    signal: ex.signal,
    headers,
    destroy: ex.destroy,
    ...(plan.kind === 'cut' ? { cut: plan.cut } : {}),
  });
}

function nextCallId(state: ServerState, dialect: MockDialect | undefined): () => string {
  let n = 0;
  if (dialect?.callId) return () => dialect.callId!(state.seq, n++);
  return () => `call_mock${String(state.seq).padStart(6, '0')}_${n++}`;
}

function vendorHeaders(state: ServerState): Record<string, string> {
  return { 'x-request-id': `req_mock${String(state.seq).padStart(8, '0')}`, 'openai-version': '2020-10-01', 'openai-processing-ms': '1' };
}

function sendError(res: ServerResponse, error: ApiError, dialect?: MockDialect): void {
  sendJson(res, error.status, dialect?.errorBody ? dialect.errorBody(error.status, error.body.error) : error.body, error.headers);
}
