// Wording of OpenAI's type errors: "expected a string, but got an integer instead."

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'string') return 'a string';
  return typeof value;
}

export function typeMessage(param: string, expected: string, got: unknown): string {
  return `Invalid type for '${param}': expected ${expected}, but got ${describeType(got)} instead.`;
}
