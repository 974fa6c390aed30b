// The input of every tenant capability, one schema each, shared by the three doors: REST
// parses its path parameters with the query or body into it, tRPC takes it as the
// procedure's input (so a client gets its type), GraphQL's arguments map onto it. Numbers
// are typed numbers; the REST door turns query strings into numbers first.
import { z } from 'zod';
import { createAgentRequest, providerName, putProviderKeyRequest } from './control.ts';
import { reportQuery, stageRequest, workflowRef } from './workflows.ts';

const id = z.string().min(1).max(64);
const fingerprint = z.string().min(1).max(128);

/** `GET /v1/activity`. */
export const activityQuery = z.object({ limit: z.number().int().min(1).max(500).default(50) }).strict();

/** A workflow's report: live, or stored version N. */
export const reportInput = workflowRef.extend(reportQuery.shape);
/** Move a workflow to a stage. */
export const stageInput = workflowRef.extend(stageRequest.shape);

/** One step of a workflow. */
export const stepRef = z.object({ id, fingerprint }).strict();

/** `PATCH /v1/workflows/:id/steps/:fingerprint`: take a step out of the expected steps, or give back its semantic cache. */
export const stepPatchInput = z
  .object({
    id,
    fingerprint,
    excluded: z.boolean().optional(),
    /** true gives a step back the semantic cache it lost (its checks start over); false takes it away. */
    semantic_cache: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.excluded !== undefined || b.semantic_cache !== undefined, { message: 'give excluded or semantic_cache' });

/** The stored calls behind a step, optionally only those one model served. */
export const stepCallsInput = z.object({ id, fingerprint, model: z.string().trim().min(1).max(256).optional() }).strict();

/** A workflow's production events of the last `days` days. */
export const eventsInput = z.object({ id, days: z.number().int().min(1).max(90).default(7) }).strict();

/** Turn discovery on or off for a proxy agent. */
export const discoveryInput = z.object({ id, enabled: z.boolean() }).strict();

export const createAgentInput = createAgentRequest;
/** One key of an agent. */
export const agentKeyRef = z.object({ id, key_id: z.string().min(1).max(64) }).strict();

/** One provider's stored key. */
export const providerRef = z.object({ provider: providerName }).strict();
export const putProviderKeyInput = providerRef.extend(putProviderKeyRequest.shape);

/**
 * `GET /v1/workflows/:id/recordings`: a page of a workflow's recordings, newest first (the
 * cursor is the previous page's `next_cursor`); `step` narrows to one step's (by fingerprint).
 */
export const recordingsInput = z
  .object({
    id,
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(200).optional(),
    step: fingerprint.optional(),
  })
  .strict();
/** One recording of a workflow (its id is its call's id). */
export const recordingRef = z.object({ id, recording_id: z.string().min(1).max(64) }).strict();

/** One webhook endpoint of the tenant's alerts. */
export const webhookRef = z.object({ id: z.string().min(1).max(64) }).strict();
