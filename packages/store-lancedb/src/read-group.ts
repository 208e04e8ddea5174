/**
 * Grouped reads: lookups of one kind that arrive while a query of that kind is running wait, and go together into
 * the next query (one LanceDB scan for all of them instead of one each). A lookup that finds no query running
 * starts one at once, so a lone caller waits no longer than before.
 *
 * Every lookup is answered by a query that started after the lookup was made, so it sees every write acknowledged
 * before it (read-your-writes holds as for a query of its own). A failed query fails every lookup of its group with
 * the same error; the next group starts afresh.
 */
export class ReadGroup<L, A> {
  private running = false;
  private waiting: {
    lookups: L[];
    settle: Array<{ from: number; to: number; ok: (a: A[]) => void; fail: (e: unknown) => void }>;
  } | null = null;

  /** `query(lookups)` answers every lookup of a group, in their order. */
  constructor(private readonly query: (lookups: readonly L[]) => Promise<A[]>) {}

  /** The answers of `lookups`, in their order, from the next query that starts. */
  submit(lookups: readonly L[]): Promise<A[]> {
    return new Promise<A[]>((ok, fail) => {
      this.waiting ??= { lookups: [], settle: [] };
      const from = this.waiting.lookups.length;
      this.waiting.lookups.push(...lookups);
      this.waiting.settle.push({ from, to: this.waiting.lookups.length, ok, fail });
      if (!this.running) this.next();
    });
  }

  private next(): void {
    const group = this.waiting;
    if (!group) return;
    this.waiting = null;
    this.running = true;
    this.query(group.lookups)
      .then(
        (answers) => {
          for (const s of group.settle) s.ok(answers.slice(s.from, s.to));
        },
        (error: unknown) => {
          for (const s of group.settle) s.fail(error);
        },
      )
      .finally(() => {
        this.running = false;
        this.next();
      });
  }
}
