// Mistral through the gateway, against the OpenAI mock in Mistral's dialect: strict
// fields (422 for any OpenAI field Mistral lacks), nine-character tool-call ids, usage on
// the last chunk of every stream, and Mistral's error bodies.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'mistral',
  model: 'mistral-small-latest',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, dialect: 'mistral', ...opts }),
  env: (url, key) => ({ MISTRAL_BASE_URL: url, MISTRAL_API_KEY: key }),
  faultModel: (f) => `mistral/${f}`,
  // Mistral reports prompt-cache hits, and no reasoning share of completion_tokens.
  usage: { reasoning: false },
  inspect(req) {
    const r = inspectOpenAI(req);
    return { ...r, forcedTool: req.body.tool_choice === 'any' ? '*' : r.forcedTool };
  },
};
