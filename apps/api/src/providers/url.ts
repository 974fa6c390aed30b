// Vendor URLs are built on every call from the same few strings (a base URL, a path, a model),
// so each is parsed once. The URL objects are shared between calls: nothing may change them.
const parsed = new Map<string, URL>();
/** Distinct URLs kept parsed; past it a URL is parsed per call (still correct, only slower). */
const MAX_URLS = 1_000;

export function urlOf(href: string): URL {
  let url = parsed.get(href);
  if (!url) {
    url = new URL(href);
    if (parsed.size < MAX_URLS) parsed.set(href, url);
  }
  return url;
}
