// The gate's JSON Schema checks: what a broken answer is told, one compile per schema, a bounded
// cache, and a tenant's schema that cannot stall the gateway.
import { describe, expect, it } from 'vitest';
import { compiledCount, MAX_COMPILED, schemaProblem, validatorFor } from './schema-check.ts';
import { validateAnswer } from './quality-gate.ts';
import type { Completed } from './complete.ts';

const completion = (message: Record<string, unknown>): Completed =>
  ({ text: JSON.stringify({ choices: [{ message, finish_reason: 'stop' }] }), answer: '', finishReason: 'stop', attempt: {} as never, status: 200 }) as Completed;

describe('schema checks', () => {
  it('names the first broken place, and passes what holds', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['n'], additionalProperties: false };
    expect(schemaProblem(schema, { n: 1, tags: ['a'] })).toBeNull();
    expect(schemaProblem(schema, { n: 1.5 })).toBe('/n must be integer');
    expect(schemaProblem(schema, { tags: [] })).toBe("(root) must have required property 'n'");
    expect(schemaProblem(schema, { n: 1, extra: true })).toBe('(root) must NOT have additional properties');
    expect(schemaProblem(schema, { n: 1, tags: [3] })).toBe('/tags/0 must be string');
  });

  it('reads a schema of any draft by the keywords they share, $defs and $ref included', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { id: { type: 'string', minLength: 3 } }, type: 'object', properties: { id: { $ref: '#/$defs/id' } } };
    expect(schemaProblem(schema, { id: 'abc' })).toBeNull();
    expect(schemaProblem(schema, { id: 'a' })).toBe('/id must NOT have fewer than 3 characters');
  });

  it('compiles a schema once and keeps at most MAX_COMPILED', () => {
    const s = { type: 'object', properties: { once: { type: 'string' } } };
    expect(validatorFor(s)).toBe(validatorFor(JSON.parse(JSON.stringify(s))));
    for (let i = 0; i < MAX_COMPILED + 50; i++) validatorFor({ type: 'object', properties: { [`f${i}`]: { type: 'string' } } });
    expect(compiledCount()).toBe(MAX_COMPILED);
  });

  it('does not check what it cannot compile, and never runs a pattern that could backtrack for ever', () => {
    expect(schemaProblem({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, { a: 1 })).toBeNull();
    const t0 = performance.now();
    expect(schemaProblem({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(500);
    expect(schemaProblem({ type: 'string', pattern: '^[a-z]+$' }, 'ABC')).toBe('(root) must match pattern "^[a-z]+$"');
  });
});

describe('the quality gate', () => {
  const body = {
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } },
    tools: [{ type: 'function', function: { name: 'send', parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } } }],
  };
  it('fails JSON that breaks the schema and tool arguments that break the tool', () => {
    expect(validateAnswer(body, completion({ content: '{"ok": true}' }))).toBeNull();
    expect(validateAnswer(body, completion({ content: '{"ok": "yes"}' }))).toBe("breaks the request's JSON schema (/ok must be boolean)");
    expect(validateAnswer(body, completion({ content: 'ok' }))).toBe('is not the JSON the request asked for');
    expect(validateAnswer(body, completion({ tool_calls: [{ function: { name: 'send', arguments: '{"to": "a"}' } }] }))).toBeNull();
    expect(validateAnswer(body, completion({ tool_calls: [{ function: { name: 'send', arguments: '{"to": 5}' } }] }))).toBe('calls send with arguments that break its schema (/to must be string)');
    expect(validateAnswer(body, completion({ tool_calls: [{ function: { name: 'other', arguments: '{}' } }] }))).toBe('calls an unknown tool other');
  });
});
