// The replay vendor: an OpenAI-compatible server (node:http, loopback only) that answers model M
// for a recorded prompt with M's recorded answer and usage, grades judge calls from the recorded
// scores (judge.ts), and, for --drift, degrades a model's answers on one step on request.
//
//   POST /v1/chat/completions   non-stream (and a one-chunk stream)
//   GET  /v1/models
//   POST /__degrade {model, step}   that model's answers for that step become a refusal, score 0
//   GET  /__stats                   counters
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callCost, contentText, promptKey, type Answer, type Models, type Row } from './data.ts';
import { judgeReply, parseJudgeCall, verdict } from './judge.ts';

export const DEGRADED_TEXT = 'I cannot answer that.';
const BODY_LIMIT = 8 * 1024 * 1024;

export interface VendorStats {
  completions: Record<string, number>;
  judgeCalls: number;
  judgeFlips: number;
  /** Judge calls whose answer matched no recorded text (graded 0). */
  judgeUnmatched: number;
  /** Judge calls whose judged request matched no recorded prompt (graded 0). */
  judgeUnknownRequest: number;
  notFound: number;
  degraded: string[];
  /** USD of answers and judge calls whose prompt matched no row (priced, but no call to charge them to). */
  unattributedSpend: number;
}

export interface ReplayVendorOptions {
  rows: readonly Row[];
  models: Models;
  judgeNoise: number;
  seed: number;
}

export class ReplayVendor {
  readonly #byKey = new Map<string, Row>();
  /** Fallback: last user message → row, when the gateway changed earlier messages; null when ambiguous. */
  readonly #byLastUser = new Map<string, Row | null>();
  readonly #models: Models;
  readonly #noise: number;
  readonly #seed: number;
  readonly #degraded = new Set<string>();
  readonly #judgements = new Map<string, number>();
  /** USD the gateway paid this vendor per row id (every answer and judge call about that row's prompt). */
  readonly #spend = new Map<string, number>();
  /** Requests answered or refused so far: moves while the gateway is still busy. */
  #handled = 0;
  readonly #server: Server;
  #seq = 0;
  readonly stats: VendorStats = { completions: {}, judgeCalls: 0, judgeFlips: 0, judgeUnmatched: 0, judgeUnknownRequest: 0, notFound: 0, degraded: [], unattributedSpend: 0 };
  url = '';

  constructor(opts: ReplayVendorOptions) {
    this.#models = opts.models;
    this.#noise = opts.judgeNoise;
    this.#seed = opts.seed;
    for (const r of opts.rows) {
      this.#byKey.set(promptKey(r.messages), r);
      const last = lastUserText(r.messages);
      this.#byLastUser.set(last, this.#byLastUser.has(last) ? null : r);
    }
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.keepAliveTimeout = 30_000;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.#server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The row a request's messages stand for. */
  find(messages: readonly unknown[]): Row | undefined {
    return this.#byKey.get(promptKey(messages)) ?? this.#byLastUser.get(lastUserText(messages)) ?? undefined;
  }

  /** A row's answers as the vendor serves them now (degraded ones replaced). */
  answersFor(row: Row): Record<string, Answer> {
    let out: Record<string, Answer> | undefined;
    for (const m of Object.keys(row.answers)) {
      if (!this.#degraded.has(`${m}|${row.step}`)) continue;
      out ??= { ...row.answers };
      // Quality drifts, price does not: the recorded usage stays, so costs are unchanged.
      out[m] = { text: DEGRADED_TEXT, score: 0, usage: row.answers[m]!.usage };
    }
    return out ?? row.answers;
  }

  /** What the vendor was paid, priced from the recording, for calls about row `rowId` so far. */
  spendOf(rowId: string): number {
    return this.#spend.get(rowId) ?? 0;
  }

  /**
   * Resolves once no request has come for `quietMs` (or after `maxMs`), with the milliseconds
   * waited: the gateway's learning after its answers calls the vendor after the client has its answer.
   */
  async quiet(quietMs: number, maxMs: number): Promise<number> {
    const t0 = Date.now();
    let seen = this.#handled;
    let since = t0;
    while (Date.now() - t0 < maxMs) {
      await new Promise((r) => setTimeout(r, 200));
      if (this.#handled !== seen) {
        seen = this.#handled;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) break;
    }
    return Date.now() - t0;
  }

  /** A counter of every request handled; unchanged for a while means the gateway has gone quiet. */
  get handled(): number {
    return this.#handled;
  }

  #charge(row: Row | undefined, model: string, usage: { prompt_tokens: number; completion_tokens: number }): void {
    const cost = callCost(usage, this.#models.models[model]!);
    if (row) this.#spend.set(row.id, (this.#spend.get(row.id) ?? 0) + cost);
    else this.stats.unattributedSpend += cost;
  }

  degrade(model: string, step: string): void {
    this.#degraded.add(`${model}|${step}`);
    this.stats.degraded = [...this.#degraded];
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#handled++;
    try {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/v1/models') {
        return send(res, 200, { object: 'list', data: Object.keys(this.#models.models).map((id) => ({ id, object: 'model', created: 0, owned_by: 'replay' })) });
      }
      if (req.method === 'GET' && path === '/__stats') return send(res, 200, this.stats);
      if (req.method === 'POST' && path === '/__degrade') {
        const b = (await readJson(req)) as { model?: unknown; step?: unknown };
        if (typeof b.model !== 'string' || typeof b.step !== 'string') return send(res, 400, oaiError('model and step are required', 'invalid_request_error', null, 'invalid_body'));
        this.degrade(b.model, b.step);
        return send(res, 200, { degraded: this.stats.degraded });
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') return this.#completion(res, await readJson(req));
      this.stats.notFound++;
      return send(res, 404, oaiError(`Unknown route ${req.method} ${path}`, 'invalid_request_error', null, 'not_found'));
    } catch (e) {
      if (!res.headersSent) send(res, 400, oaiError(`Could not read the request: ${(e as Error).message}`, 'invalid_request_error', null, 'invalid_body'));
      else res.destroy();
    }
  }

  #completion(res: ServerResponse, body: unknown): void {
    const b = (body ?? {}) as { model?: unknown; messages?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } | null };
    const model = typeof b.model === 'string' ? b.model : '';
    if (!this.#models.models[model]) {
      this.stats.notFound++;
      return send(res, 404, oaiError(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model', 'model_not_found'));
    }
    const messages = Array.isArray(b.messages) ? (b.messages as unknown[]) : [];
    let content: string;
    let usage: { prompt_tokens: number; completion_tokens: number };
    const judge = parseJudgeCall(messages);
    if (judge) {
      this.stats.judgeCalls++;
      const row = this.find(judge.request);
      let score: 0 | 1 = 0;
      if (!row) this.stats.judgeUnknownRequest++;
      else {
        const key = `${row.id}|${judge.answer.trim()}`;
        const nth = this.#judgements.get(key) ?? 0;
        this.#judgements.set(key, nth + 1);
        const v = verdict(this.answersFor(row), judge.answer, this.#noise, this.#seed, row.id, nth);
        if (v.matched === undefined) this.stats.judgeUnmatched++;
        if (v.flipped) this.stats.judgeFlips++;
        score = v.score;
      }
      ({ content, usage } = judgeReply(messages, score));
      this.#charge(row, model, usage);
    } else {
      const row = this.find(messages);
      const answer = row ? this.answersFor(row)[model] : undefined;
      if (!row || !answer) {
        this.stats.notFound++;
        return send(res, 404, oaiError(row ? `No recorded answer of ${model} for this prompt.` : 'No recorded answer for this prompt.', 'invalid_request_error', 'messages', 'not_found'));
      }
      content = answer.text;
      usage = answer.usage;
      this.#charge(row, model, usage);
    }
    this.stats.completions[model] = (this.stats.completions[model] ?? 0) + 1;
    const id = `chatcmpl-replay-${++this.#seq}`;
    const created = Math.floor(Date.now() / 1000);
    const fullUsage = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    if (b.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
      res.write(chunk([{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }]));
      res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      if (b.stream_options?.include_usage === true) res.write(chunk([], { usage: fullUsage }));
      res.end('data: [DONE]\n\n');
      return;
    }
    send(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: fullUsage,
      system_fingerprint: null,
    });
  }
}

function lastUserText(messages: readonly unknown[]): string {
  const m = [...messages].reverse().find((x) => (x as { role?: unknown } | undefined)?.role === 'user') as { content?: unknown } | undefined;
  return m ? contentText(m.content) : '';
}

function oaiError(message: string, type: string, param: string | null, code: string) {
  return { error: { message, type, param, code } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(text.trim() === '' ? {} : JSON.parse(text));
      } catch (e) {
        reject(e as Error);
      }
    });
    req.on('error', reject);
  });
}
