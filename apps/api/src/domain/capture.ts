// Content capture (spec 4.5) and the recordings it keeps (spec 2.7, 4.2): the tenant's
// capture settings, a workflow's recordings page by page (or one step's), and one recording
// in full. The recordings domain checks that the workflow is the tenant's (404 otherwise).
import type { z } from 'zod';
import type { CaptureSettings, recordingRef, recordingsInput, SettingsPatch } from '@optimizer/schema';
import type { Services } from '../services.ts';
import type { Tenant } from './tenant.ts';

export function captureSettings(s: Services, t: Tenant) {
  return s.recordings.settings.get(t.accountId);
}

/** Merges the write into the stored settings (a field left out keeps its value; null: its default). */
export function putCaptureSettings(s: Services, t: Tenant, q: SettingsPatch<CaptureSettings>) {
  return s.recordings.settings.put(t.accountId, q);
}

export function listRecordings(s: Services, t: Tenant, q: z.output<typeof recordingsInput>) {
  return s.recordings.list(t.accountId, q.id, q);
}

export function getRecording(s: Services, t: Tenant, q: z.output<typeof recordingRef>) {
  return s.recordings.get(t.accountId, q.id, q.recording_id);
}
