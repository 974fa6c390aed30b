// The built-in vendors by name: the one list the provider registry (providers/registry.ts, whose
// table the compiler holds to exactly these names) and the log redaction (logger.ts: each vendor's
// `x-provider-key-<vendor>` header) read.
export const BUILT_IN_VENDORS = ['openai', 'anthropic', 'gemini', 'bedrock', 'mistral', 'groq', 'together', 'deepseek', 'xai', 'fireworks', 'openrouter', 'ollama', 'vllm', 'azure-openai'] as const;

export type BuiltInVendor = (typeof BUILT_IN_VENDORS)[number];
