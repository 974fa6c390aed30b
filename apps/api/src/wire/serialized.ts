// The client's own bytes for a body the gateway forwards unchanged. The fast path keeps the
// request's text with the object annotate forwards; an adapter that sends that very object
// sends the text as received instead of serializing it again (a 100 KB agent prompt costs a
// parse either way, but no second stringify). Any stage that changes the body makes a new
// object (`{ ...ctx.body, … }`), which has no text here and is serialized as usual.
const texts = new WeakMap<object, string>();

/** Records that `text` is the JSON of `body`, exactly as the client sent it. */
export function rememberText(body: object, text: string): void {
  texts.set(body, text);
}

/** The body's JSON: the client's own text when the gateway forwards the body unchanged. */
export function serialize(body: object): string {
  return texts.get(body) ?? JSON.stringify(body);
}
