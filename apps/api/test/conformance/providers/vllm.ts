// A vLLM server through the gateway, against the OpenAI mock: a self-hosted OpenAI-compatible server with an optional key.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'vllm',
  model: 'vllm/meta-llama/Llama-3.1-8B-Instruct',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, ...opts }),
  env: (url, key) => ({ VLLM_BASE_URL: url, VLLM_API_KEY: key }),
  faultModel: (f) => `vllm/${f}`,
  inspect: inspectOpenAI,
};
