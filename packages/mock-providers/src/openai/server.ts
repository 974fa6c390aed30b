// The OpenAI-compatible mock server: routing, recording, auth, latency, abort tracking.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { MAGIC_MODELS, planFault, type FaultState } from '../faults.ts';
import { closeServer, delay, listen, parseJson, readBody, sendJson, untilAborted } from '../http.ts';
import type { MockVendor, OpenAIMockOptions, RecordedRequest, ScriptedReply } from '../types.ts';
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
  const state: ServerState = { requests: [], script: undefined, aborted: 0, seq: 0, faults: { flakyCalls: 0 }, closing: false };
  const server = createServer((req, res) => {
    handle(exchangeFor(req, res, state), state, opts).catch(() => {
      if (!res.headersSent) sendError(res, { status: 500, body: { error: { message: 'mock failure', type: 'server_error', param: null, code: null } } });
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port ?? 0, host);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
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

async function handle(ex: Exchange, state: ServerState, opts: OpenAIMockOptions): Promise<void> {
  const { req, res } = ex;
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const rawBody = await readBody(req);
  const parsed = rawBody === '' ? { ok: false as const } : parseJson(rawBody);
  if (opts.record !== false) {
    state.requests.push({ method, path, headers: req.headers, body: parsed.ok ? parsed.value : undefined, rawBody, receivedAt: Date.now() });
  }
  if (!(await delay(opts.latencyMs ?? 0, ex.signal))) return;
  const denied = opts.apiKey === undefined ? null : authError(req.headers.authorization, opts.apiKey);
  if (denied) return sendError(res, denied);

  if (method === 'POST' && path.endsWith('/chat/completions')) {
    if (!parsed.ok) return sendError(res, INVALID_JSON);
    const invalid = validateChatRequest(parsed.value);
    if (invalid) return sendError(res, invalid);
    return chatCompletion(ex, parsed.value as ChatRequest, state, opts);
  }
  if (method === 'GET' && path.endsWith('/models')) return sendJson(res, 200, modelList(MAGIC_MODELS), vendorHeaders(state));
  return sendError(res, invalidUrl(method, path));
}

async function chatCompletion(ex: Exchange, request: ChatRequest, state: ServerState, opts: OpenAIMockOptions): Promise<void> {
  const stream = request.stream === true;
  const plan = planFault(request.model, stream, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, plan.error);
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;

  state.seq++;
  const reply = buildReply(request, state.script, nextCallId(state));
  const meta = { id: `chatcmpl-mock${String(state.seq).padStart(8, '0')}`, created: Math.floor(Date.now() / 1000), model: request.model };
  const headers = vendorHeaders(state);
  if (!stream) return sendJson(ex.res, 200, completionBody(reply, meta), headers);
  const includeUsage = request.stream_options?.include_usage === true;
  await writeSse(ex.res, chunkSequence(reply, meta, includeUsage), {
    chunkDelayMs: opts.chunkDelayMs ?? 0,
    signal: ex.signal,
    headers,
    destroy: ex.destroy,
    ...(plan.kind === 'cut' ? { cut: plan.cut } : {}),
  });
}

function nextCallId(state: ServerState): () => string {
  let n = 0;
  return () => `call_mock${String(state.seq).padStart(6, '0')}_${n++}`;
}

function vendorHeaders(state: ServerState): Record<string, string> {
  return { 'x-request-id': `req_mock${String(state.seq).padStart(8, '0')}`, 'openai-version': '2020-10-01', 'openai-processing-ms': '1' };
}

function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, error.body, error.headers);
}
