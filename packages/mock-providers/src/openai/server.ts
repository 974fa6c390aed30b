// The OpenAI-compatible mock server: routing, recording, auth, latency, abort tracking.
// With a dialect it answers as an OpenAI-compatible vendor does (dialects.ts).
import { createServer, type ServerResponse } from 'node:http';
import { MAGIC_MODELS, planFault } from '../faults.ts';
import { delay, listen, parseJson, readBody, sendJson, untilAborted } from '../http.ts';
import { isRecord } from '../guards.ts';
import type { MockVendor, OpenAIMockOptions } from '../types.ts';
import { azureAuthError, azureDeployment, dialects, type MockDialect } from './dialects.ts';
import { apiError, authError, INVALID_JSON, invalidUrl, type ApiError } from './errors.ts';
import { buildReply } from './reply.ts';
import { chunkSequence, writeSse } from './stream.ts';
import { validateChatRequest, type ChatRequest } from './validate.ts';
import { completionBody, modelList } from './wire.ts';
import { embeddingsBody, validateEmbeddings } from './embeddings.ts';
import { exchangeFor, newState, vendorHandle, type Exchange, type ServerState } from '../vendor.ts';

export async function startOpenAIMock(opts: OpenAIMockOptions = {}): Promise<MockVendor> {
  const host = opts.host ?? '127.0.0.1';
  const dialect = opts.dialect ? dialects[opts.dialect] : undefined;
  const state = newState();
  const server = createServer((req, res) => {
    handle(exchangeFor(req, res, state), state, opts, dialect).catch(() => {
      if (!res.headersSent) sendError(res, { status: 500, body: { error: { message: 'mock failure', type: 'server_error', param: null, code: null } } });
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port ?? 0, host);
  return vendorHandle(server, state, host, port, dialect?.azure ? '/openai' : '/v1');
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
  const bearer = typeof req.headers.authorization === 'string' ? req.headers.authorization.replace(/^Bearer /, '') : '';
  const keyFault = opts.keyFaults?.[bearer];
  if (keyFault) return sendError(res, apiError(keyFault, 'The server had an error while processing your request. Sorry about that!', 'server_error'), dialect);
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
  const embeddingsDeployment = dialect?.azure ? (/^\/openai\/deployments\/([^/]+)\/embeddings$/.exec(path)?.[1] ?? null) : null;
  const isEmbeddings = dialect?.azure ? embeddingsDeployment !== null && new URLSearchParams(query).has('api-version') : path.endsWith('/embeddings');
  // Groq and DeepSeek serve no embeddings: the route does not exist there.
  if (method === 'POST' && isEmbeddings && opts.dialect !== 'groq' && opts.dialect !== 'deepseek') {
    if (!parsed.ok) return sendError(res, INVALID_JSON, dialect);
    return embeddings(ex, parsed.value, embeddingsDeployment === null ? null : decodeURIComponent(embeddingsDeployment), state, opts, dialect);
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
  const graded = opts.grader?.(request.messages.map((m) => ({ role: String(m.role), content: m.content })));
  const reply = buildReply(request, graded === undefined ? state.script : { content: graded }, nextCallId(state, dialect));
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

async function embeddings(ex: Exchange, body: unknown, deployment: string | null, state: ServerState, opts: OpenAIMockOptions, dialect: MockDialect | undefined): Promise<void> {
  const model = deployment ?? (isRecord(body) && typeof body.model === 'string' ? body.model : '');
  const plan = planFault(model, false, state.faults);
  if (plan.kind === 'error') return sendError(ex.res, plan.error, dialect);
  if (plan.kind === 'reset') return ex.destroy();
  if (plan.kind === 'hang') return untilAborted(ex.signal);
  if (plan.kind === 'delay' && !(await delay(plan.ms, ex.signal))) return;
  const request = validateEmbeddings(body, opts.dialect, deployment);
  if ('status' in request) return sendJson(ex.res, request.status, dialect?.errorBody && request.status !== 422 ? dialect.errorBody(request.status, request.body.error) : request.body, request.headers);
  state.seq++;
  return sendJson(ex.res, 200, embeddingsBody(request, state.script, opts.dialect, state.seq), vendorHeaders(state));
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
