// Stage: capture. It notes what the tenant's capture settings keep of a call (nothing, its
// metadata, or the request as the vendor sees it after the guard); the call's recording row and
// the text evidence may keep follow that note, masked when the settings redact PII.
import type { CaptureSettings } from '@optimizer/schema';
import { describe, expect, it } from 'vitest';
import { captureStage, evidenceText, recordingRow } from './capture-stage.ts';
import { callContext, completion } from '../../test/support/pipeline.ts';

const capture = (content: CaptureSettings['content'], redact = false) => ({ content, redact_pii: redact }) as CaptureSettings;
const call = { status: 200, error_code: null, served_model: 'gpt-4.1', prompt_tokens: 9, completion_tokens: 3 };
const answer = JSON.stringify({ ...JSON.parse(completion('Reach me at bob@example.com')), optimizer: { cache_hit: false } });

describe('captureStage', () => {
  it('keeps nothing of a call when capture is off', () => {
    const ctx = callContext();
    captureStage(ctx, capture('none'));
    expect(ctx.capture).toBeNull();
    expect(recordingRow(ctx, call, answer)).toBeNull();
    expect(evidenceText(ctx)('an answer')).toBeNull();
  });

  it('keeps the metadata of a call, never its text', () => {
    const ctx = callContext({ messages: [{ role: 'system', content: 'terse' }, { role: 'user', content: 'secret plan' }] });
    captureStage(ctx, capture('metadata'));
    const row = recordingRow(ctx, call, answer)!;
    expect(row).toMatchObject({ id: ctx.id, content: 'metadata', request: null, response: null, meta: { messages: 2, roles: ['system', 'user'] }, status: 200, served_model: 'gpt-4.1' });
    expect(evidenceText(ctx)('an answer')).toBeNull();
  });

  it('keeps the request as noted after the guard and the answer without its optimizer block', () => {
    const ctx = callContext();
    captureStage(ctx, capture('full'));
    const noted = ctx.body;
    ctx.body = { ...ctx.body, messages: [] }; // a later stage (prune) builds a new body: the note keeps the one it saw
    const row = recordingRow(ctx, call, answer)!;
    expect(row.request).toBe(noted);
    expect(row.response).toMatchObject({ choices: [{ message: { content: 'Reach me at bob@example.com' } }] });
    expect(row.response).not.toHaveProperty('optimizer');
    expect(row.redacted).toBe(false);
    expect(evidenceText(ctx)('bob@example.com')).toBe('bob@example.com');
  });

  it('masks PII in what it keeps when the settings redact', () => {
    const ctx = callContext({ messages: [{ role: 'user', content: 'mail ann@example.com' }] });
    captureStage(ctx, capture('full', true));
    const row = recordingRow(ctx, call, answer)!;
    expect(JSON.stringify(row.request)).not.toContain('ann@example.com');
    expect(JSON.stringify(row.response)).not.toContain('bob@example.com');
    expect(row.redacted).toBe(true);
    expect(evidenceText(ctx)('bob@example.com')).not.toContain('bob@example.com');
  });
});
