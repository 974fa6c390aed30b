// Overlapping reloads of one in-memory copy (a write's own reload, and the notices of writes here
// and on other replicas): a read that began earlier may finish after a later one and would put
// back what a write between them changed. Each reload takes a ticket when it begins, and its rows
// are applied only if no reload begun later is in memory already. A write reads back what it wrote
// (a reload of its own) rather than set it in memory, so it is ordered the same way.
export class NewestRead {
  #begun = 0;
  #applied = 0;

  /** A reload begins: its ticket. */
  begin(): number {
    return ++this.#begun;
  }

  /** A reload's read: what `query` read, or undefined when a reload begun later is in memory already (drop it). */
  async read<T>(query: () => Promise<T>): Promise<T | undefined> {
    const ticket = this.begin();
    const rows = await query();
    return this.apply(ticket) ? rows : undefined;
  }

  /** Whether the reload begun at `ticket` may replace what is in memory (it is then what is in memory). */
  apply(ticket: number): boolean {
    if (ticket < this.#applied) return false;
    this.#applied = ticket;
    return true;
  }
}
