// PII and secret detectors: a pattern finds candidates, a check (Luhn, mod-97, issuer
// prefixes, number ranges) keeps only the ones that are what they look like, so a number
// in a prompt is not redacted merely for being long. Pure functions over one string.
import type { PiiKind } from '@optimizer/schema';
import { isValidPhoneNumber, type CountryCode } from 'libphonenumber-js/max';

export interface Span {
  kind: PiiKind;
  start: number;
  end: number;
}

type Detector = (text: string) => Span[];

function matches(kind: PiiKind, re: RegExp, text: string, keep: (m: RegExpExecArray) => boolean = () => true, group = 0): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(re)) {
    if (!keep(m)) continue;
    const value = m[group];
    if (value === undefined) continue;
    const start = m.index + (group === 0 ? 0 : m[0].indexOf(value));
    out.push({ kind, start, end: start + value.length });
  }
  return out;
}

/**
 * For runs of digit groups (cards, phones), which can run into a number that follows: the
 * longest prefix, cut at a separator, that passes the check; a candidate starts at every
 * group, so candidates may overlap.
 */
function groupedMatches(kind: PiiKind, re: RegExp, text: string, keep: (value: string) => boolean): Span[] {
  const out: Span[] = [];
  const scan = new RegExp(re.source, re.flags);
  let m: RegExpExecArray | null;
  while ((m = scan.exec(text)) !== null) {
    let value = m[0];
    let kept = false;
    for (;;) {
      if (keep(value)) {
        kept = true;
        break;
      }
      const cut = Math.max(value.lastIndexOf(' '), value.lastIndexOf('-'), value.lastIndexOf('.'));
      if (cut <= 0) break;
      value = value.slice(0, cut).replace(/[ .(-]+$/, '');
    }
    if (kept) out.push({ kind, start: m.index, end: m.index + value.length });
    // the next candidate may start inside this one (a run of digit groups can hold an IBAN's
    // tail and then a card): overlapping candidates are settled by detect()
    scan.lastIndex = m.index + 1;
  }
  return out;
}

const digitsOf = (s: string) => s.replace(/\D/g, '');

/** Luhn checksum (ISO/IEC 7812). */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes of the major card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const CARD_PREFIX = /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|35|3(?:0[0-5]|[68])|5[06-8]|6[37])/;

export function isCardNumber(raw: string): boolean {
  const d = digitsOf(raw);
  return d.length >= 13 && d.length <= 19 && CARD_PREFIX.test(d) && luhn(d);
}

/** IBAN lengths by country (ISO 13616 registry, the common ones). */
const IBAN_LENGTH: Record<string, number> = {
  AD: 24, AE: 23, AT: 20, BE: 16, BG: 22, BH: 22, BR: 29, CH: 21, CY: 28, CZ: 24, DE: 22, DK: 18, EE: 20, ES: 24, FI: 18, FO: 18,
  FR: 27, GB: 22, GI: 23, GL: 18, GR: 27, HR: 21, HU: 28, IE: 22, IL: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LI: 21,
  LT: 20, LU: 20, LV: 21, MC: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SE: 24,
  SI: 19, SK: 24, SM: 27, TN: 24, TR: 26, UA: 29,
};

/** ISO 7064 mod 97-10 over the rearranged IBAN. */
export function isIban(raw: string): boolean {
  const s = raw.replace(/ /g, '').toUpperCase();
  const len = IBAN_LENGTH[s.slice(0, 2)];
  if (len === undefined || s.length !== len) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = ch >= 'A' && ch <= 'Z' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rem = v > 9 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/** IBANs: a candidate may run into the words after it, so it is cut at its country's length before the checksum. */
function ibans(text: string): Span[] {
  const out: Span[] = [];
  const scan = new RegExp(IBAN.source, IBAN.flags);
  let m: RegExpExecArray | null;
  while ((m = scan.exec(text)) !== null) {
    const len = IBAN_LENGTH[m[0].slice(0, 2).toUpperCase()];
    let seen = 0;
    let end = 0;
    if (len !== undefined) while (end < m[0].length && seen < len) if (m[0][end++] !== ' ') seen++;
    const value = m[0].slice(0, end);
    const next = text[m.index + end];
    const ok = len !== undefined && seen === len && (next === undefined || !/[A-Za-z0-9]/.test(next)) && isIban(value);
    if (ok) out.push({ kind: 'iban', start: m.index, end: m.index + end });
    scan.lastIndex = ok ? m.index + end : m.index + 1;
  }
  return out;
}

/** US SSN: never area 000, 666 or 9xx, group 00 or serial 0000. */
function isSsn(m: RegExpExecArray): boolean {
  const [a, g, s] = [m[1]!, m[2]!, m[3]!];
  return a !== '000' && a !== '666' && a[0] !== '9' && g !== '00' && s !== '0000';
}

/** UK National Insurance number: prefixes BG, GB, KN, NK, NT, TN and ZZ are never issued. */
function isNino(m: RegExpExecArray): boolean {
  return !['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'].includes(m[1]!.toUpperCase());
}

const EMAIL = /(?<![\p{L}\p{N}_.%+-])[\p{L}\p{N}][\p{L}\p{N}._%+-]{0,63}@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_-])/gu;
/** 13–19 digits together, in groups of four (the last shorter), or Amex's 4-6-5; never inside a word or a hex string. */
const CARD = /(?<![A-Za-z0-9-])(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2}[ -]\d{4}[ -]\d{1,3}|\d{4}(?:[ -]\d{4}){2}[ -]\d{1,7}|\d{4}[ -]\d{6}[ -]\d{4,5})(?![A-Za-z0-9-])/g;
/** A number named as something else just before it (`order 4111…`, `tracking no. …`) is that, not a card. */
const NOT_CARD_BEFORE = /\b(?:order|orders|ref|reference|invoice|tracking|shipment|parcel|transaction|txn|ticket|case|sku|ean|upc|isbn|serial|build|id|ids)\b(?:\s*(?:no\.?|number|nr\.?|#|id|is|was|:))*\s*[#:]?\s*$/i;
/** Words that name a card, which overrule the above (`order paid with card 4111…`). */
const CARD_WORD = /\b(?:card|cc|pan|visa|mastercard|amex|discover|jcb|diners|unionpay|maestro|kreditkarte|carte|tarjeta)\b/i;
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/gi;
/** Countries whose national (trunk-0) numbers are checked when a number has no `+`. */
const TRUNK_COUNTRIES: CountryCode[] = ['GB', 'DE', 'FR', 'NL', 'IT', 'ES', 'AT', 'CH', 'BE', 'IE', 'AU'];
/** A phone number by the issuing plan's number ranges (libphonenumber's metadata), not only by its shape. */
const validIntl = (v: string) => isValidPhoneNumber(v);
const validNanp = (v: string) => isValidPhoneNumber(v, 'US') || isValidPhoneNumber(v, 'CA');
const validTrunk = (v: string) => TRUNK_COUNTRIES.some((c) => isValidPhoneNumber(v, c));
/** Words that say the number after them is a phone (for bare digit runs only). */
const PHONE_CONTEXT = /(?:phone|tel\b|telephone|mobile|cell|call|sms|text me|whatsapp|fax|contact|number)[^.\n]{0,40}$/i;

const PHONE_INTL = /(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?![\w])/g;
const PHONE_NANP = /(?<![\w(+-])(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[.-])\d{3}[.-]\d{4}(?![\w-])|(?<![\w(+-])[2-9]\d{2} \d{3} \d{4}(?![\w-])/g;
/** National numbers with a trunk 0: `0171 2345678`, `07700 900123`, `030 1234 5678`, `06 12 34 56 78`, `06 12345678`. */
const PHONE_TRUNK = /(?<![\w+.-])0\d{1,4}[ -](?:\d{6,8}|\d{3,4}[ -]\d{3,4}|\d{2}(?:[ .-]\d{2}){3})(?![\w-])/g;
/** Ten bare digits, a NANP number when the words before it say it is a phone. */
const PHONE_BARE = /(?<![\w+.-])[2-9]\d{9}(?![\w.-])/g;
const SSN = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])/g;
/** `536 22 8726` or `536228726`: an SSN only where the words before it name one. */
const SSN_LOOSE = /(?<![\w-])(\d{3}) ?(\d{2}) ?(\d{4})(?![\w-])/g;
const SSN_CONTEXT = /(?:\bssn|social security(?: number| no\.?)?|\bsocial sec\.?)\W{0,3}(?:\w+\W{1,3}){0,4}$/i;
/** India's PAN: five letters (the fourth says the holder's type), four digits, a letter. */
const PAN = /(?<![A-Za-z0-9])[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z](?![A-Za-z0-9])/g;
const NINO = /(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g;
const SECRET_TOKENS = new RegExp(
  [
    String.raw`sk-(?:proj-|ant-|opt-)?[A-Za-z0-9_-]{20,}`, // OpenAI, Anthropic, this gateway
    String.raw`(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`, // Stripe
    String.raw`AKIA[0-9A-Z]{16}`, // AWS access key id
    String.raw`gh[pousr]_[A-Za-z0-9]{36,}`, // GitHub tokens
    String.raw`github_pat_[A-Za-z0-9_]{22,}`,
    String.raw`xox[abprs]-[A-Za-z0-9-]{10,}`, // Slack
    String.raw`AIza[0-9A-Za-z_-]{35}`, // Google API key
    String.raw`whsec_[A-Za-z0-9+/=]{16,}`, // webhook signing secrets
    String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, // JWT
  ].map((p) => `(?<![A-Za-z0-9_-])${p}(?![A-Za-z0-9_-])`).join('|'),
  'g',
);
const PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;
/** `password: hunter2…`, `api_key="…"`: the value after a credential-like name, when it looks like one (8+ characters, letters and digits). */
const ASSIGNED = /(?:\b|_)(?:pass(?:word|wd)?|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?access[_-]?key)\b["']?\s*[:=]\s*["']?([^\s"',;()<>]{8,200})/gi;

/** The password in a URL's credentials: `postgres://app:S3cr3t@db:5432/app`. */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s/@]{6,200})@[\w.-]+/gi;

/** `sk-` keys are random base62: mixed case and digits (`sk-learn-tutorial-2023` is not one). */
function randomLooking(m: RegExpExecArray): boolean {
  const v = m[0];
  return !v.startsWith('sk-') || (/[A-Z]/.test(v) && /[a-z]/.test(v) && /\d/.test(v));
}

const detectors: Record<PiiKind, Detector> = {
  // `git@github.com:org/repo.git` is an SSH remote (user@host:path), not an address
  email: (t) => matches('email', EMAIL, t, (m) => !/^:[\w~/.-]/.test(t.slice(m.index + m[0].length, m.index + m[0].length + 2))),
  card: (t) =>
    groupedMatches('card', CARD, t, isCardNumber).filter((s) => {
      const before = t.slice(Math.max(0, s.start - 40), s.start);
      return !NOT_CARD_BEFORE.test(before) || CARD_WORD.test(before.slice(-20));
    }),
  iban: ibans,
  phone: (t) => [
    ...groupedMatches('phone', PHONE_INTL, t, (v) => {
      const n = digitsOf(v).length;
      return n >= 8 && n <= 15 && !/\.\d(?!\d)/.test(v) && validIntl(v); // `+1.2.3.4567890` is a version
    }),
    ...matches('phone', PHONE_NANP, t, (m) => validNanp(m[0])),
    ...matches('phone', PHONE_TRUNK, t, (m) => validTrunk(m[0])),
    ...matches('phone', PHONE_BARE, t, (m) => PHONE_CONTEXT.test(t.slice(Math.max(0, m.index - 60), m.index)) && validNanp(m[0])),
  ],
  national_id: (t) => [
    ...matches('national_id', SSN, t, isSsn),
    ...matches('national_id', SSN_LOOSE, t, (m) => m[0].includes('-') === false && isSsn(m) && SSN_CONTEXT.test(t.slice(Math.max(0, m.index - 60), m.index))),
    ...matches('national_id', NINO, t, isNino),
    ...matches('national_id', PAN, t),
  ],
  secret: (t) => [...matches('secret', SECRET_TOKENS, t, randomLooking), ...matches('secret', PEM, t), ...matches('secret', ASSIGNED, t, (m) => /\d/.test(m[1]!) && /[A-Za-z]/.test(m[1]!), 1), ...matches('secret', URL_PASSWORD, t, (m) => !/^\$\{|^<|^\*+$/.test(m[1]!), 1)],
};

/** Which kind wins when two spans overlap at the same length. */
const PRIORITY: PiiKind[] = ['secret', 'email', 'iban', 'card', 'national_id', 'phone'];

/** Every PII span of the given kinds, without overlaps: the longest spans are kept first (then the kind listed first above), and a shorter one only where it overlaps none kept. */
export function detect(text: string, kinds: readonly PiiKind[]): Span[] {
  const all: Span[] = [];
  for (const k of kinds) all.push(...detectors[k](text));
  if (all.length < 2) return all;
  all.sort((a, b) => b.end - b.start - (a.end - a.start) || PRIORITY.indexOf(a.kind) - PRIORITY.indexOf(b.kind) || a.start - b.start);
  const kept: Span[] = [];
  for (const s of all) if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  return kept.sort((a, b) => a.start - b.start);
}
