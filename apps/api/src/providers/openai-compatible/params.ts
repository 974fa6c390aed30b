// Applies a vendor's parameter table to an OpenAI request body: first what the vendor
// cannot do (named, so the gateway answers 400), then the vendor's body. Pure.
import type { ChatBody } from '../types.ts';
import type { ParamContext, ParamRule, VendorProfile } from './profile.ts';

/** Fields every vendor takes: the family exists because of them. */
const ALWAYS = new Set(['model', 'messages', 'stream']);

const PART_NAMES: Record<string, string> = { image_url: 'image input', input_audio: 'audio input', file: 'file input' };

function ruleFor(profile: VendorProfile, param: string): ParamRule | undefined {
  return profile.params.find((r) => r.param === param);
}

function decide(d: string | ((v: unknown, ctx: ParamContext) => string | null) | undefined, value: unknown, ctx: ParamContext): string | null {
  if (d === undefined) return null;
  return typeof d === 'string' ? d : d(value, ctx);
}

function ruleRefusal(rule: ParamRule, value: unknown, ctx: ParamContext): string | null {
  const named = decide(rule.unsupported, value, ctx);
  if (named) return named;
  if (typeof value === 'number') {
    if (rule.min !== undefined && value < rule.min) return `${rule.param} below ${rule.min}`;
    if (rule.max !== undefined && value > rule.max) return `${rule.param} above ${rule.max}`;
  }
  return null;
}

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** The first content part the vendor cannot read, named. */
function contentRefusal(profile: VendorProfile, body: ChatBody, model: string): string | null {
  for (const m of body.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const part of m.content as { type?: unknown; image_url?: unknown }[]) {
      const type = typeof part?.type === 'string' ? part.type : 'text';
      if (type === 'text') continue;
      const name = PART_NAMES[type] ?? `${type} content`;
      if (profile.parts !== '*' && !profile.parts.includes(type)) return name;
      if (type !== 'image_url') continue;
      const images = profile.images(model);
      if (images === 'none') return name;
      const url = typeof part.image_url === 'string' ? part.image_url : (part.image_url as { url?: unknown } | undefined)?.url;
      if (images === 'data-url-only' && !(typeof url === 'string' && url.startsWith('data:'))) return 'image URLs (send images as base64 data: URLs)';
    }
  }
  return null;
}

/** Names the first thing in this request the vendor cannot do, or null. */
export function refusal(profile: VendorProfile, body: ChatBody, model: string): string | null {
  const ctx: ParamContext = { body, model };
  for (const [field, value] of Object.entries(body)) {
    if (!isSet(value)) continue;
    const rule = ruleFor(profile, field);
    if (rule) {
      const named = ruleRefusal(rule, value, ctx);
      if (named) return named;
      continue;
    }
    if (!ALWAYS.has(field) && profile.accepts && !profile.accepts.includes(field)) return field;
  }
  return contentRefusal(profile, body, model);
}

/**
 * The vendor's body: dropped fields removed, renamed ones under the vendor's name (a
 * rename wins over a field the client also set under that name), values transformed.
 * Fields set to null mean "not set" in OpenAI's API and are left out. Assumes refusal()
 * found nothing.
 */
export function vendorBody(profile: VendorProfile, body: ChatBody, model: string): Record<string, unknown> {
  const ctx: ParamContext = { body, model };
  const out: Record<string, unknown> = {};
  const renamed: [string, unknown][] = [];
  for (const [field, value] of Object.entries(body)) {
    if (!isSet(value)) continue;
    const rule = ruleFor(profile, field);
    if (!rule) {
      out[field] = value;
      continue;
    }
    if (decide(rule.drop, value, ctx)) continue;
    const v = rule.transform ? rule.transform(value, ctx) : value;
    if (rule.to) renamed.push([rule.to, v]);
    else out[field] = v;
  }
  for (const [field, value] of renamed) out[field] = value;
  if (profile.modelInUrl) delete out.model;
  return out;
}
