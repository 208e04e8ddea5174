/**
 * Group commit: writes of one kind that arrive while the write lock is busy wait together and go into the next
 * commit as one batch (one LanceDB append for all of them instead of one table version each).
 *
 * The first write of a batch asks for a turn at once (`schedule`), so the batch keeps its place in the write
 * queue; every write arriving before that turn starts joins it. When the turn starts, the batch is closed and
 * `commit` gets every write of it: it returns, per write, `undefined` (part of the commit) or the error refusing
 * that write alone (its own validation failed: the others still commit). A throw of `commit` fails the whole
 * batch: every write of it is rejected with that same error. A caller's promise settles only after the commit
 * holding its write has completed, so an acknowledged write is durable and visible to the caller's next read.
 */
export class GroupCommit<T, I> {
  private open: { items: I[]; settle: Array<(error: unknown) => void> } | null = null;

  /**
   * `schedule(run)` takes a turn under the write lock and runs `run` there with the port's tables, resolving or
   * rejecting as it does; `commit(t, items)` writes a closed batch (see the class).
   */
  constructor(
    private readonly schedule: (run: (t: T) => Promise<void>) => Promise<void>,
    private readonly commit: (t: T, items: readonly I[]) => Promise<Array<unknown | undefined>>,
  ) {}

  /** Queue one write; resolves when the commit holding it has completed, rejects with its error otherwise. */
  submit(item: I): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settle = (error: unknown) => (error === undefined ? resolve() : reject(error));
      if (this.open) {
        this.open.items.push(item);
        this.open.settle.push(settle);
        return;
      }
      const batch = { items: [item], settle: [settle] };
      this.open = batch;
      let outcomes: Array<unknown | undefined> = [];
      this.schedule(async (t) => {
        // The turn has come: later writes start the next batch.
        if (this.open === batch) this.open = null;
        outcomes = await this.commit(t, batch.items);
      }).then(
        // Settled once the turn is over (the lock given back): each write gets its own outcome.
        () => {
          for (const [i, s] of batch.settle.entries()) s(outcomes[i]);
        },
        (error: unknown) => {
          if (this.open === batch) this.open = null;
          // The whole batch failed (its commit, or the turn itself): every write of it gets the same error.
          for (const s of batch.settle) s(error ?? new Error('commit failed'));
        },
      );
    });
  }
}
