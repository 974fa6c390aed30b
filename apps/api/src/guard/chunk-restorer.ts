// Restores a streamed answer's chunks (OpenAI chat.completion.chunk JSON): each choice's
// content and each tool call's arguments get their placeholders turned back into the
// originals, holding back a tail that may be a placeholder split across chunks until the
// next chunk, the choice's finish, or the stream's end.
import type { StreamRestorer, Vault } from './vault.ts';

type Delta = { content?: string | null; tool_calls?: { index?: number; function?: { arguments?: string } }[] };
type Choice = { index?: number; delta?: Delta; finish_reason?: string | null };
type Chunk = { choices?: Choice[] } & Record<string, unknown>;

export class ChunkRestorer {
  readonly #vault: Vault;
  readonly #fields = new Map<string, StreamRestorer>();
  #last: Chunk | null = null;

  constructor(vault: Vault) {
    this.#vault = vault;
  }

  #field(key: string): StreamRestorer {
    let r = this.#fields.get(key);
    if (!r) this.#fields.set(key, (r = this.#vault.streamRestorer()));
    return r;
  }

  /** The chunk as the client should see it. */
  chunk(data: string): string {
    let j: Chunk;
    try {
      j = JSON.parse(data) as Chunk;
    } catch {
      return this.#vault.restoreJson(data);
    }
    this.#last = j;
    for (const c of j.choices ?? []) {
      const i = c.index ?? 0;
      const d = c.delta;
      if (d && typeof d.content === 'string') d.content = this.#field(`${i}`).push(d.content);
      for (const t of d?.tool_calls ?? []) if (t.function && typeof t.function.arguments === 'string') t.function.arguments = this.#field(`${i}:${t.index ?? 0}`).push(t.function.arguments);
      if (c.finish_reason) this.#flushChoice(c, i);
    }
    return JSON.stringify(j);
  }

  #flushChoice(c: Choice, i: number): void {
    for (const [key, r] of this.#fields) {
      const [choice, tool] = key.split(':');
      if (Number(choice) !== i) continue;
      const rest = r.flush();
      if (!rest) continue;
      c.delta ??= {};
      if (tool === undefined) c.delta.content = (c.delta.content ?? '') + rest;
      else (c.delta.tool_calls ??= []).push({ index: Number(tool), function: { arguments: rest } });
    }
  }

  /** A last chunk with whatever is still held back (a stream that ended without finishing), or null. */
  end(): string | null {
    const choices: Choice[] = [];
    for (const key of this.#fields.keys()) {
      const i = Number(key.split(':')[0]);
      if (choices.some((c) => c.index === i)) continue;
      const c: Choice = { index: i, delta: {}, finish_reason: null };
      this.#flushChoice(c, i);
      if (c.delta!.content !== undefined || c.delta!.tool_calls) choices.push(c);
    }
    if (choices.length === 0) return null;
    const last = this.#last ?? {};
    return JSON.stringify({ id: last.id, object: 'chat.completion.chunk', created: last.created, model: last.model, choices });
  }
}
