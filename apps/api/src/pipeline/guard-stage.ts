// Stage: guard — PII redaction and the prompt-injection policy (spec 4.5, issue 17). It sits
// after annotate and before anything is cached, priced or sent, so nothing it would redact
// reaches a vendor, a cache or a log. Until the guard settings exist it passes every call.
import type { CallContext } from './context.ts';

export function guardStage(_ctx: CallContext): void {}
