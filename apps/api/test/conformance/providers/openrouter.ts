// OpenRouter through the gateway, against the OpenAI mock: the routed model name is OpenRouter's own (vendor/model).
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'openrouter',
  model: 'openrouter/openai/gpt-4o-mini',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, ...opts }),
  env: (url, key) => ({ OPENROUTER_BASE_URL: url, OPENROUTER_API_KEY: key }),
  faultModel: (f) => `openrouter/${f}`,
  inspect: inspectOpenAI,
};
