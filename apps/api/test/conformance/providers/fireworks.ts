// Fireworks through the gateway, against the OpenAI mock: max_completion_tokens goes out as max_tokens.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'fireworks',
  model: 'fireworks/accounts/fireworks/models/llama-v3p1-70b-instruct',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, ...opts }),
  env: (url, key) => ({ FIREWORKS_BASE_URL: url, FIREWORKS_API_KEY: key }),
  faultModel: (f) => `fireworks/${f}`,
  inspect: inspectOpenAI,
};
