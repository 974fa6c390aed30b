// Providers the gateway can call: the built-in vendors (base URL and platform key
// overridable from the environment) and, later, those the admin registers.
import type { Config } from '../config.ts';
import type { ProviderInfo, Wire } from './types.ts';
import type { BuiltInVendor } from '../wire/vendors.ts';

interface BuiltIn {
  wire: Wire;
  defaultBaseUrl: string | null;
  baseUrlEnv: keyof Config;
  keyEnv: keyof Config | null;
  options?: (c: Config) => Record<string, string>;
  /** A platform key assembled from several variables (Bedrock's AWS credentials). */
  platformKey?: (c: Config) => string | undefined;
}

const openaiCompatible = (defaultBaseUrl: string | null, baseUrlEnv: keyof Config, keyEnv: keyof Config | null): BuiltIn => ({ wire: 'openai', defaultBaseUrl, baseUrlEnv, keyEnv });

export const builtIns: Record<BuiltInVendor, BuiltIn> = {
  openai: openaiCompatible('https://api.openai.com/v1', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'),
  anthropic: { wire: 'anthropic', defaultBaseUrl: 'https://api.anthropic.com/v1', baseUrlEnv: 'ANTHROPIC_BASE_URL', keyEnv: 'ANTHROPIC_API_KEY' },
  gemini: { wire: 'gemini', defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta', baseUrlEnv: 'GEMINI_BASE_URL', keyEnv: 'GEMINI_API_KEY' },
  bedrock: {
    wire: 'bedrock',
    defaultBaseUrl: null,
    baseUrlEnv: 'BEDROCK_BASE_URL',
    keyEnv: null,
    options: (c) => ({ region: c.AWS_REGION }),
    platformKey: (c) =>
      c.AWS_ACCESS_KEY_ID && c.AWS_SECRET_ACCESS_KEY
        ? [c.AWS_ACCESS_KEY_ID, c.AWS_SECRET_ACCESS_KEY, c.AWS_SESSION_TOKEN].filter(Boolean).join(':')
        : undefined,
  },
  mistral: openaiCompatible('https://api.mistral.ai/v1', 'MISTRAL_BASE_URL', 'MISTRAL_API_KEY'),
  groq: openaiCompatible('https://api.groq.com/openai/v1', 'GROQ_BASE_URL', 'GROQ_API_KEY'),
  together: openaiCompatible('https://api.together.xyz/v1', 'TOGETHER_BASE_URL', 'TOGETHER_API_KEY'),
  deepseek: openaiCompatible('https://api.deepseek.com/v1', 'DEEPSEEK_BASE_URL', 'DEEPSEEK_API_KEY'),
  xai: openaiCompatible('https://api.x.ai/v1', 'XAI_BASE_URL', 'XAI_API_KEY'),
  fireworks: openaiCompatible('https://api.fireworks.ai/inference/v1', 'FIREWORKS_BASE_URL', 'FIREWORKS_API_KEY'),
  openrouter: openaiCompatible('https://openrouter.ai/api/v1', 'OPENROUTER_BASE_URL', 'OPENROUTER_API_KEY'),
  ollama: openaiCompatible('http://127.0.0.1:11434/v1', 'OLLAMA_BASE_URL', null),
  vllm: openaiCompatible(null, 'VLLM_BASE_URL', 'VLLM_API_KEY'),
  'azure-openai': { ...openaiCompatible(null, 'AZURE_OPENAI_BASE_URL', 'AZURE_OPENAI_API_KEY'), options: (c) => ({ apiVersion: c.AZURE_OPENAI_API_VERSION }) },
};

export class ProviderRegistry {
  readonly #providers = new Map<string, ProviderInfo>();
  #custom = new Map<string, ProviderInfo>();

  constructor(config: Config) {
    for (const [name, b] of Object.entries(builtIns)) {
      const base = (config[b.baseUrlEnv] as string | undefined) ?? b.defaultBaseUrl ?? (name === 'bedrock' ? `https://bedrock-runtime.${config.AWS_REGION}.amazonaws.com` : null);
      if (!base) continue; // a provider with no default address (vLLM, Azure) exists once configured
      const key = b.platformKey ? b.platformKey(config) : b.keyEnv ? (config[b.keyEnv] as string | undefined) : undefined;
      this.#providers.set(name, {
        name,
        wire: b.wire,
        baseUrl: base.replace(/\/+$/, ''),
        ...(key ? { platformKey: key } : {}),
        ...(b.options ? { options: b.options(config) } : {}),
      });
    }
  }

  get(name: string): ProviderInfo | undefined {
    return this.#providers.get(name) ?? this.#custom.get(name);
  }

  has(name: string): boolean {
    return this.#providers.has(name) || this.#custom.has(name);
  }

  names(): string[] {
    return [...this.#providers.keys(), ...this.#custom.keys()];
  }

  isBuiltIn(name: string): boolean {
    return name in builtIns;
  }

  /** Built-in providers as configured (for the admin list). */
  builtIn(): ProviderInfo[] {
    return [...this.#providers.values()];
  }

  /** Replaces the admin-registered providers (enabled ones only). */
  setCustom(list: ProviderInfo[]): void {
    this.#custom = new Map(list.map((p) => [p.name, p]));
  }
}
