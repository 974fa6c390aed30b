// Rate limits over GraphQL (design §10): requests and tokens per minute for the tenant and for
// single keys, within the platform's ceiling. Limits are Floats: a token limit may pass GraphQL's
// 32-bit Int; a fraction is refused as REST refuses it.
import { rateLimitSettingsPatch } from '@optimizer/schema';
import { putRateLimits, rateLimits } from '../../domain/limits.ts';
import { type Builder, capability, reader, settingsWire } from '../builder.ts';

export function registerLimits(builder: Builder) {
  type View = ReturnType<typeof rateLimits>;
  interface Window {
    requests_per_minute: number | null;
    tokens_per_minute: number | null;
  }

  const RateWindow = builder.objectRef<Window>('RateWindow').implement({
    description: 'Requests and tokens per minute; null: no limit of its own.',
    fields: (t) => ({
      requestsPerMinute: t.exposeFloat('requests_per_minute', { nullable: true }),
      tokensPerMinute: t.exposeFloat('tokens_per_minute', { nullable: true }),
    }),
  });

  const KeyRateLimit = builder.objectRef<View['keys'][number]>('KeyRateLimit').implement({
    description: "One key's own limits, counted apart from its siblings'.",
    fields: (t) => ({
      keyId: t.exposeString('key_id'),
      requestsPerMinute: t.exposeFloat('requests_per_minute', { nullable: true }),
      tokensPerMinute: t.exposeFloat('tokens_per_minute', { nullable: true }),
    }),
  });

  const RateLimits = builder.objectRef<View>('RateLimits').implement({
    fields: (t) => ({
      tenant: t.field({ type: RateWindow, description: 'Every key of the tenant together.', resolve: (v) => v.tenant }),
      keys: t.field({ type: [KeyRateLimit], resolve: (v) => v.keys }),
      ceiling: t.field({ type: RateWindow, description: "The platform's ceiling (null: none); a tenant without limits of its own is held to it.", resolve: (v) => v.ceiling }),
    }),
  });

  const RateWindowInput = builder.inputType('RateWindowInput', {
    fields: (t) => ({ requestsPerMinute: t.float(), tokensPerMinute: t.float() }),
  });

  const KeyRateLimitInput = builder.inputType('KeyRateLimitInput', {
    fields: (t) => ({ keyId: t.string({ required: true }), requestsPerMinute: t.float(), tokensPerMinute: t.float() }),
  });

  const RateLimitsInput = builder.inputType('RateLimitsInput', {
    description: 'Merges into the rate limits, as PUT /v1/settings/limits does: a field left out keeps its value, null returns it to its default (no limit); keys, when sent, replace the list.',
    fields: (t) => ({ tenant: t.field({ type: RateWindowInput }), keys: t.field({ type: [KeyRateLimitInput] }) }),
  });

  builder.queryFields((t) => ({
    rateLimits: t.field({ type: RateLimits, resolve: reader(rateLimits) }),
  }));

  builder.mutationFields((t) => ({
    setRateLimits: t.field({ type: RateLimits, args: { input: t.arg({ type: RateLimitsInput, required: true }) }, resolve: capability(rateLimitSettingsPatch, putRateLimits, settingsWire()) }),
  }));
}
