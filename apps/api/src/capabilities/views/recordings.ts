// What the recordings capabilities answer: a call's recording, as the capture settings kept it,
// and a page of them.
import { z } from 'zod';
import { asJson, named, time } from '../shapes.ts';

const int = () => z.number().int();

const RecordingStep = named('RecordingStep', z.object({ fingerprint: z.string(), label: z.string() }));
const RecordingUsage = named('RecordingUsage', z.object({ prompt_tokens: int(), completion_tokens: int() }));
const RecordingMeta = named('RecordingMeta', z.object({ messages: int(), roles: z.array(z.string()) }).describe('What metadata keeps without the text.'));

export const Recording = named(
  'Recording',
  z
    .object({
      id: z.string(),
      call_id: z.string(),
      workflow_id: z.string(),
      created_at: time(),
      step: RecordingStep.nullable(),
      content: z.enum(['metadata', 'full']).describe('`metadata` or `full`.'),
      redacted: z.boolean(),
      requested_model: z.string(),
      served_model: z.string().nullable(),
      status: int(),
      error_code: z.string().nullable(),
      usage: RecordingUsage,
      request: asJson(z.looseObject({}).nullable()).describe('The request as the vendor saw it (after the guard); null for metadata.'),
      response: asJson(z.looseObject({}).nullable()).describe('The stored response as the client received it; null for metadata or a failed call.'),
      meta: RecordingMeta,
    })
    .describe("One call's recording, as the capture settings kept it."),
);

export const RecordingPage = named(
  'RecordingPage',
  z.object({
    data: z.array(Recording),
    next_cursor: z.string().nullable().describe('Pass it as `cursor` for the next page; null at the end.'),
  }),
);
