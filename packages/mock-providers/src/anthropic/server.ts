// The Anthropic Messages API mock: POST {url}/messages with x-api-key and
// anthropic-version, strict validation, scripted or deterministic replies, streaming in
// Anthropic's SSE framing, and the shared magic fault models (faults.ts) answered in
// Anthropic's error envelope.
import { createServer, type ServerResponse } from 'node:http';
import { MAGIC_MODELS, planFault } from '../faults.ts';
import { delay, listen, parseJson, readBody, sendJson, untilAborted } from '../http.ts';
import type { MockVendor, OpenAIMockOptions } from '../types.ts';
import { authError, errorBody, fromFault, INTERNAL, INVALID_JSON, NOT_FOUND, versionError, type AnthropicError } from './errors.ts';
import { MODEL_IDS } from './models.ts';
import { buildReply } from './reply.ts';
import { eventSequence, writeSse } from './stream.ts';
import { validateMessagesRequest, type MessagesRequest } from './validate.ts';
import { messageBody, modelList } from './wire.ts';
import { exchangeFor, newState, vendorHandle, type Exchange, type ServerState } from '../vendor.ts';

/** The same options as the OpenAI mock; `apiKey` is checked against the x-api-key header. */
export type AnthropicMockOptions = OpenAIMockOptions;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export async function startAnthropicMock(opts: AnthropicMockOptions = {}): Promise<MockVendor> {
  const host = opts.host ?? '127.0.0.1';
  const state = newState();
  const server = createServer((req, res) => {
    handle(exchangeFor(req, res, state), state, opts).catch(() => {
      if (!res.headersSent) sendError(res, state, INTERNAL);
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port ?? 0, host);
  return vendorHandle(server, state, host, port, '/v1');
}

async function handle(ex: Exchange, state: ServerState, opts: AnthropicMockOptions): Promise<void> {
  const { req, res } = ex;
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const rawBody = await readBody(req);
  const parsed = rawBody === '' ? { ok: false as const } : parseJson(rawBody);
  if (opts.record !== false) {
    state.requests.push({ method, path, headers: req.headers, body: parsed.ok ? parsed.value : undefined, rawBody, receivedAt: Date.now() });
  }
  if (!(await delay(opts.latencyMs ?? 0, ex.signal))) return;
  const denied = (opts.apiKey === undefined ? null : authError(req.headers['x-api-key'], opts.apiKey)) ?? versionError(req.headers['anthropic-version']);
  if (denied) return sendError(res, state, denied);

  if (method === 'POST' && path.endsWith('/messages')) {
    if (!parsed.ok) return sendError(res, state, INVALID_JSON);
    const invalid = validateMessagesRequest(parsed.value);
    if (invalid) return sendError(res, state, invalid);
    return createMessage(ex, parsed.value as MessagesRequest, state, opts);
  }
  if (method === 'GET' && path.endsWith('/models')) return sendJson(res, 200, modelList([...MODEL_IDS, ...MAGIC_MODELS]), vendorHeaders(state));
  return sendError(res, state, NOT_FOUND);
}

async function createMessage(ex: Exchange, request: MessagesRequest, state: ServerState, opts: AnthropicMockOptions): Promise<void> {
  const stream = request.stream === true;
  const plan = planFault(request.model, stream, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, state, fromFault(plan.error));
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;

  state.seq++;
  let calls = 0;
  const reply = buildReply(request, state.script, () => `toolu_mock${pad(state.seq, 6)}_${calls++}`);
  const meta = { id: `msg_mock${pad(state.seq, 8)}`, model: request.model };
  const headers = vendorHeaders(state);
  if (!stream) return sendJson(ex.res, 200, messageBody(reply, meta), headers);
  await writeSse(ex.res, eventSequence(reply, meta), {
    chunkDelayMs: opts.chunkDelayMs ?? 0,
    signal: ex.signal,
    headers,
    destroy: ex.destroy,
    ...(plan.kind === 'cut' ? { cut: plan.cut } : {}),
  });
}

function vendorHeaders(state: ServerState): Record<string, string> {
  return { 'request-id': `req_mock${pad(state.seq, 8)}`, 'anthropic-organization-id': 'mock-org' };
}

function sendError(res: ServerResponse, state: ServerState, error: AnthropicError): void {
  const requestId = `req_mock${pad(state.seq, 8)}`;
  sendJson(res, error.status, errorBody(error, requestId), { 'request-id': requestId, 'x-should-retry': String(error.status === 429 || error.status >= 500), ...error.headers });
}
