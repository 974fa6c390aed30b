// Saying what was not done (spec 4.5 keeps the raw routing write accepting any tier key): a
// ladder stored under a key that is no routing tier (`ladders.premuim`), and a call whose
// `auto:<tier>` names a tier with no ladder, are served as asked, with a warning in the
// `x-optimizer-warning` header (and, for a call, in its reasons) instead of silence.
import { routingTiers } from '@optimizer/schema';

/** The response header that carries warnings: what the gateway accepted but will not act on as the caller may think. */
export const WARNING_HEADER = 'x-optimizer-warning';

const known: ReadonlySet<string> = new Set(routingTiers);

/** A warning for each ladder stored under a key that is not a routing tier. */
export function unknownTierWarnings(ladders: Record<string, unknown> | null | undefined): string[] {
  return Object.entries(ladders ?? {})
    .filter(([tier, models]) => !known.has(tier) && models !== null && models !== undefined)
    .map(([tier]) => `ladders.${tier}: "${tier}" is not a routing tier (${routingTiers.join(', ')}); the ladder is stored, and only calls to auto:${tier} use it`);
}

/** The warning for a call to `auto:<tier>` whose tier has no ladder in the routing settings, or null. */
export function unladderedTierWarning(requestedModel: string, tier: string, ladder: string[] | undefined): string | null {
  if (ladder || !requestedModel.startsWith('auto:')) return null;
  const kind = known.has(tier) ? `tier ${tier} has no ladder` : `"${tier}" is not a routing tier (${routingTiers.join(', ')}) and has no ladder`;
  return `${requestedModel}: ${kind} in the routing settings; the call was routed over every allowed model, learning on its own from the baseline`;
}

/** Warnings as one header value: printable ASCII, one line. */
export function warningHeaderValue(warnings: string[]): string {
  return warnings.join('; ').replace(/[^\x20-\x7e]/g, '?');
}
