// Which embeddings adapter serves a provider, or null when the vendor offers none
// through the gateway (Anthropic has no embeddings API; Groq, DeepSeek and xAI neither).
import { bedrockEmbeddingAdapter } from './bedrock/embeddings.ts';
import { geminiEmbeddingAdapter } from './gemini/embeddings.ts';
import { openaiEmbeddingAdapter } from './openai/embeddings.ts';
import { compatEmbeddingAdapter, embeddingProfileFor } from './openai-compatible/embeddings.ts';
import { profileFor } from './openai-compatible/vendors.ts';
import type { EmbeddingAdapter, ProviderInfo } from './types.ts';

export function embeddingAdapterFor(provider: ProviderInfo): EmbeddingAdapter | null {
  switch (provider.wire) {
    case 'openai':
      if (!profileFor(provider.name)) return openaiEmbeddingAdapter;
      return embeddingProfileFor(provider.name) ? compatEmbeddingAdapter : null;
    case 'gemini':
      return geminiEmbeddingAdapter;
    case 'bedrock':
      return bedrockEmbeddingAdapter;
    case 'anthropic':
      return null;
  }
}
