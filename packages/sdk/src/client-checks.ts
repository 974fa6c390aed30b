// What the SDK refuses before sending, on every door it speaks (the REST resources, client.call and
// the tRPC client): a routing write with a ladder under a key that is no routing tier. The
// server stores such a ladder (spec 4.5, with an x-optimizer-warning header); the clients are
// what refuse it. Every other rule is the server's.
import type { z } from 'zod';
import { routingSettingsSchema } from './routing-settings.ts';
import { validate } from './transport.ts';

const checks: Record<string, z.ZodType> = {
  'settings.setRouting': routingSettingsSchema,
};

/** The input as the capability's client-side check parses it, or an OptimizerError (status 0, client_validation) when it fails; unchanged for a capability without one. */
export function clientCheck(capability: string, input: unknown, endpoint: string): unknown {
  const schema = checks[capability];
  return schema ? validate(schema, input, endpoint) : input;
}
