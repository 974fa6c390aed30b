// The operations of the REST door that are not capabilities (apps/api/src/capabilities/), and
// the components they name: what HTTP alone says (http-only.ts), the OpenAI-compatible data
// plane (gateway.ts) and the platform admin API (admin.ts).
import { modelProfileSchema, optimizerBlock } from '@optimizer/schema';
import { json, type JsonSchema } from '../json.ts';
import type { Operation } from '../operation.ts';
import { admin } from './admin.ts';
import { gateway } from './gateway.ts';
import { httpOnly } from './http-only.ts';

export const handWritten: Operation[] = [...httpOnly, ...gateway, ...admin];

/** Components the hand-written operations name. */
export const handWrittenComponents: Record<string, JsonSchema> = {
  OptimizerBlock: { ...json(optimizerBlock, 'output'), description: 'What the call cost and saved, in USD.' },
  ModelProfile: json(modelProfileSchema, 'output'),
};
