// Together through the gateway, against the OpenAI mock: max_completion_tokens goes out as max_tokens.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'together',
  model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, ...opts }),
  env: (url, key) => ({ TOGETHER_BASE_URL: url, TOGETHER_API_KEY: key }),
  faultModel: (f) => `together/${f}`,
  inspect: inspectOpenAI,
};
