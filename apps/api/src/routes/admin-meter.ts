// The meter's quarantine for the platform admin (admin key only): the metering rows the database
// refused for what they hold (meter/quarantine.ts), newest first, and per row a replay (once the
// cause is fixed) or a discard. See docs/decisions.md, "Hostile input: the meter quarantines, never stops".
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adminAuth } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import type { Services } from '../services.ts';

export const meterQuarantineQuery = z
  .object({
    /** Which entries: those still quarantined (the default), those replayed or discarded, or all. */
    status: z.enum(['quarantined', 'replayed', 'discarded', 'all']).default('quarantined'),
    limit: z.number().int().min(1).max(500).default(100),
    /** An entry's id from the previous page (its last): the page of entries older than it. */
    starting_after: z.string().min(1).max(100).optional(),
  })
  .strict();

export const meterQuarantineRef = z.object({ id: z.string().min(1).max(100) }).strict();

export function registerAdminMeterRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = adminAuth(s.adminAuth);
  const quarantine = s.meter.quarantine;

  app.get('/v1/admin/meter/quarantine', { onRequest }, async (request) => ({ data: await quarantine.list(restInput(meterQuarantineQuery, request, 'query')) }));

  app.get('/v1/admin/meter/quarantine/:id', { onRequest }, async (request) => quarantine.get(restInput(meterQuarantineRef, request, 'params').id));

  app.post('/v1/admin/meter/quarantine/:id/replay', { onRequest }, async (request) => quarantine.replay(restInput(meterQuarantineRef, request, 'params').id));

  app.post('/v1/admin/meter/quarantine/:id/discard', { onRequest }, async (request) => quarantine.discard(restInput(meterQuarantineRef, request, 'params').id));
}
