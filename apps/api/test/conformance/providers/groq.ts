// Groq through the gateway, against the OpenAI mock in Groq's dialect: fields it lacks
// refused by name, n at most 1, usage also in x_groq on the last chunk of a stream.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

export const conformance: ProviderConformance = {
  provider: 'groq',
  model: 'llama-3.1-8b-instant',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, dialect: 'groq', ...opts }),
  env: (url, key) => ({ GROQ_BASE_URL: url, GROQ_API_KEY: key }),
  faultModel: (f) => `groq/${f}`,
  // Groq reports prompt-cache hits, and no reasoning share of completion_tokens.
  usage: { reasoning: false },
  inspect: inspectOpenAI,
};
