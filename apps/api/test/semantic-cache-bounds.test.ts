// The semantic cache's memory is bounded per tenant across all its steps and scopes: a tenant
// with many scopes (each distinct system prompt or tool set is one) keeps its newest entries.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LexicalEmbedder } from '../src/cache/semantic/index.ts';
import { SemanticCache } from '../src/cache/semantic-cache.ts';
import { MemoryHotStore } from '../src/hot/memory.ts';
import { createLogger } from '../src/logger.ts';
import type { CachedAnswer } from '../src/cache/answer-cache.ts';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
/** A database with nothing stored yet: the tenant's load finds no rows. */
const emptyDb = { em: () => ({ getConnection: () => ({ execute: async () => [] }) }) };

function answer(text: string): CachedAnswer {
  return { text: JSON.stringify({ choices: [{ message: { content: text } }] }), model: 'm', provider: 'openai', baselineMicros: 10, promptTokens: 1, completionTokens: 1 } as CachedAnswer;
}

describe('semantic cache memory', () => {
  it("keeps a tenant's newest entries over all its scopes, and leaves other tenants' alone", async () => {
    const cache = new SemanticCache({ db: emptyDb as never, hot: new MemoryHotStore(), logger: quiet, createEmbedder: async () => new LexicalEmbedder(), embedTimeoutMs: 1_000, maxPerTenant: 5 });
    const ask = (accountId: string, i: number) => ({ accountId, step: 'step', scope: `scope-${i}`, question: `How do I reset the password of account number ${i}?`, threshold: undefined });
    // the first lookups make the embedder and load the (empty) tenants
    await cache.lookup(ask('a', 0));
    await cache.lookup(ask('b', 0));
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 8; i++) {
      const q = ask('a', i);
      cache.store(q, (await cache.lookup(q)).vector, answer(`answer ${i}`), 60_000);
    }
    const b = ask('b', 0);
    cache.store(b, (await cache.lookup(b)).vector, answer('b answer'), 60_000);
    await expect.poll(() => cache.entryCount('b')).toBe(1);
    expect(cache.entryCount('a')).toBe(5);
    // the oldest scopes' entries went, the newest stay
    expect((await cache.lookup(ask('a', 0))).hit).toBeNull();
    expect((await cache.lookup(ask('a', 2))).hit).toBeNull();
    expect((await cache.lookup(ask('a', 7))).hit?.answer.text).toContain('answer 7');
    expect((await cache.lookup(ask('a', 3))).hit?.answer.text).toContain('answer 3');
    expect((await cache.lookup(b)).hit?.answer.text).toContain('b answer');
    await cache.close();
  });
});

describe('semantic cache writes while the database is down', () => {
  it('keeps the newest entries waiting, at most a bounded number, and writes them once it is back', async () => {
    let down = true;
    const written: string[] = [];
    const db = {
      em: () => ({
        getConnection: () => ({
          execute: async (sql: string, params: unknown[] = []) => {
            if (!sql.startsWith('insert into semantic_cache_entries')) return [];
            if (down) throw new Error('database down');
            for (const e of JSON.parse(params[0] as string) as { question: string }[]) written.push(e.question);
            return [];
          },
        }),
      }),
    };
    const cache = new SemanticCache({ db: db as never, hot: new MemoryHotStore(), logger: quiet, createEmbedder: async () => new LexicalEmbedder(), embedTimeoutMs: 1_000, maxPending: 4 });
    const ask = (i: number) => ({ accountId: 'a', step: 'step', scope: 'scope', question: `What is the capital of country number ${i}?`, threshold: undefined });
    await cache.lookup(ask(0));
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 10; i++) cache.store(ask(i), (await cache.lookup(ask(i))).vector, answer(`answer ${i}`), 60_000);
    await expect.poll(() => cache.pendingWrites).toBe(10);
    await expect(cache.flush()).rejects.toThrow(/database down/);
    expect(cache.pendingWrites).toBe(4);
    down = false;
    await cache.flush();
    expect(cache.pendingWrites).toBe(0);
    expect(written).toEqual([6, 7, 8, 9].map((i) => ask(i).question));
    await cache.close();
  });
});
