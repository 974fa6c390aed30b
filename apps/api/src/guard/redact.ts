// Masks personal data in what a recording keeps (capture settings `redact_pii`): e-mail
// addresses, payment card numbers (Luhn-checked), IBANs, US social security numbers, phone
// numbers and IPv4 addresses become `[email]`, `[card]`, … Only string values are rewritten,
// never keys or numbers, so a stored JSON document keeps its shape. This is the recordings'
// own last line; the guard stage, before the vendor, is where a prompt's PII is replaced.

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
const SSN = /\b\d{3}-\d{2}-\d{4}\b/g;
const PHONE = /(?<![\w+])\+?\d{1,3}?[ .-]?\(?\d{2,4}\)?[ .-]\d{3,4}[ .-]\d{3,4}\b/g;
const IPV4 = /\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** The text with personal data masked, and whether anything was. */
export function redactText(text: string): { text: string; changed: boolean } {
  let out = text.replace(EMAIL, '[email]').replace(IBAN, '[iban]');
  out = out.replace(CARD, (m) => (luhn(m.replace(/\D/g, '')) ? '[card]' : m));
  out = out.replace(SSN, '[ssn]').replace(PHONE, '[phone]').replace(IPV4, '[ip]');
  return { text: out, changed: out !== text };
}

/** A deep copy of `value` with every string redacted; `hit.changed` is set when anything was masked. */
export function redactDeep<T>(value: T, hit: { changed: boolean }): T {
  if (typeof value === 'string') {
    const r = redactText(value);
    if (r.changed) hit.changed = true;
    return r.text as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, hit)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, hit);
    return out as T;
  }
  return value;
}
