// Built-in providers: where each one lives, which environment variables override
// its base URL and carry the platform's key, and which wire format it speaks.
import type { Config } from '../config.ts';

export interface ProviderInfo {
  name: string;
  wire: 'openai';
  baseUrl: string;
  platformKey?: string;
}

interface BuiltIn {
  wire: 'openai';
  defaultBaseUrl: string;
  baseUrlEnv: keyof Config;
  keyEnv: keyof Config;
}

const builtIns: Record<string, BuiltIn> = {
  openai: { wire: 'openai', defaultBaseUrl: 'https://api.openai.com/v1', baseUrlEnv: 'OPENAI_BASE_URL', keyEnv: 'OPENAI_API_KEY' },
};

export class ProviderRegistry {
  readonly #providers = new Map<string, ProviderInfo>();

  constructor(config: Config) {
    for (const [name, b] of Object.entries(builtIns)) {
      const base = (config[b.baseUrlEnv] as string | undefined) ?? b.defaultBaseUrl;
      const key = config[b.keyEnv] as string | undefined;
      this.#providers.set(name, { name, wire: b.wire, baseUrl: base.replace(/\/+$/, ''), ...(key ? { platformKey: key } : {}) });
    }
  }

  get(name: string): ProviderInfo | undefined {
    return this.#providers.get(name);
  }

  has(name: string): boolean {
    return this.#providers.has(name);
  }
}
