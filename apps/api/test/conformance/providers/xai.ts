// xAI through the gateway, against the OpenAI mock in xAI's dialect: OpenAI's chat
// completions, with completion_tokens that leave reasoning tokens out.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'xai',
  model: 'grok-3-mini',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, dialect: 'xai', ...opts }),
  env: (url, key) => ({ XAI_BASE_URL: url, XAI_API_KEY: key }),
  faultModel: (f) => `xai/${f}`,
  inspect: inspectOpenAI,
};
