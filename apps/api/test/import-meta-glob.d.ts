// Vitest (through Vite) supports import.meta.glob in tests; its type, without pulling in Vite's client types.
interface ImportMeta {
  glob<T>(pattern: string, options: { eager: true }): Record<string, T>;
}
