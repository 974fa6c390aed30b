// Stage: budget — the tenant's spend cap and wallet (spec 4.4, issue 16): a call the cap or the
// balance cannot cover is refused with the catalogued 402 before any vendor is paid. Until
// billing exists it passes every call.
import type { CallContext } from './context.ts';

export function budgetStage(_ctx: CallContext): void {}
