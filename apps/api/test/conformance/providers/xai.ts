// xAI through the gateway, against the OpenAI mock: xAI speaks OpenAI's chat completions.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'xai',
  model: 'grok-3-mini',
  startMock: (apiKey) => startOpenAIMock({ apiKey }),
  env: (url, key) => ({ XAI_BASE_URL: url, XAI_API_KEY: key }),
  faultModel: (f) => `xai/${f}`,
  inspect: inspectOpenAI,
};
