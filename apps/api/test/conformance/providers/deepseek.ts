// DeepSeek through the gateway, against the OpenAI mock in DeepSeek's dialect: text only,
// JSON mode without schemas, cache hits reported as prompt_cache_hit_tokens.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'deepseek',
  model: 'deepseek-chat',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, dialect: 'deepseek', ...opts }),
  env: (url, key) => ({ DEEPSEEK_BASE_URL: url, DEEPSEEK_API_KEY: key }),
  faultModel: (f) => `deepseek/${f}`,
  inspect: inspectOpenAI,
  optOut: {
    image: "DeepSeek's chat API reads text only",
    'json-schema': 'DeepSeek has a JSON mode (json_object) but no JSON schemas',
  },
};
