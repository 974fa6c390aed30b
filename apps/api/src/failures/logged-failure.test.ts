// How every transport logs a failure (logged-failure.ts): the catalogue's error and level, an
// internal error whole for the operator, a translated failure's cause in brief, ours with none.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { loggedFailure } from './logged-failure.ts';

describe('loggedFailure', () => {
  it('logs our own error at its catalogue level, with no cause', () => {
    const f = loggedFailure(new ApiError('invalid_request', 'bad field'));
    expect(f.error.code).toBe('invalid_request');
    expect(f.level).toBe('info');
    expect(f.fields).toEqual({ code: 'invalid_request', status: 400, err: undefined });
  });

  it('logs an unexpected failure as internal, with the error whole', () => {
    const boom = new TypeError('x is undefined');
    const f = loggedFailure(boom);
    expect(f.error.code).toBe('internal');
    expect(f.level).toBe('error');
    expect(f.fields.err).toBe(boom);
  });

  it("logs a translated failure's cause in brief (its code and message), never the object whole", () => {
    const pg = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const f = loggedFailure(pg);
    expect(f.error.code).toBe('conflict');
    expect(f.fields).toEqual({ code: 'conflict', status: 409, err: { code: '23505', message: 'duplicate key value violates unique constraint' } });
  });
});
