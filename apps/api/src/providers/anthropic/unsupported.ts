// A request feature Anthropic cannot do. The translators throw it; the adapter's
// unsupported() turns it into the phrase the gateway's 400 names.
export class Unsupported extends Error {
  override name = 'Unsupported';
}

export function refuse(phrase: string): never {
  throw new Unsupported(phrase);
}
