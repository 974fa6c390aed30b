// Stripe's request bodies: application/x-www-form-urlencoded with bracketed keys
// (`line_items[0][price_data][currency]=usd`), decoded into nested objects and arrays.

type Node = Record<string, unknown> | unknown[];

export function decodeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Node = root;
    for (let i = 0; i < path.length; i++) {
      const part = path[i]!;
      const last = i === path.length - 1;
      const slot = Array.isArray(node) ? Number(part) : part;
      if (last) {
        (node as Record<string | number, unknown>)[slot] = value;
        break;
      }
      const nextIsIndex = /^\d+$/.test(path[i + 1]!);
      const holder = node as Record<string | number, unknown>;
      holder[slot] ??= nextIsIndex ? [] : {};
      node = holder[slot] as Node;
    }
  }
  return root;
}
