// Capture settings (spec 4.5) and a workflow's recordings (spec 4.2). Thin: input through the
// shared schema, then the domain (domain/capture.ts), which checks ownership.
import type { FastifyInstance } from 'fastify';
import { captureSettingsPatch, recordingRef, recordingsInput } from '@optimizer/schema';
import { captureSettings as readCapture, getRecording, listRecordings, putCaptureSettings } from '../domain/capture.ts';
import { controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerCaptureRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  app.get('/v1/settings/capture', { onRequest }, async (request) => readCapture(s, principalOf(request)));

  app.put('/v1/settings/capture', { onRequest }, async (request) => putCaptureSettings(s, principalOf(request), parseWith(captureSettingsPatch, request.body)));

  app.get('/v1/workflows/:id/recordings', { onRequest }, async (request) => listRecordings(s, principalOf(request), restInput(recordingsInput, request, 'query')));

  app.get('/v1/workflows/:id/recordings/:recording_id', { onRequest }, async (request) => getRecording(s, principalOf(request), restInput(recordingRef, request, 'params')));
}
