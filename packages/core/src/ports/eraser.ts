/**
 * Erasing deleted data from a store's files at rest (`forget`, docs/safety.md). A delete removes rows from what the
 * store serves, but a database may keep their bytes a while longer: SQLite in its WAL until a checkpoint, PostgreSQL
 * in dead tuples, index entries and WAL segments, LanceDB in old table versions. An eraser removes those copies.
 */
export interface Eraser {
  /**
   * The storage the eraser works on (e.g. `sqlite:/srv/mem.db`, `postgres:host:5432/mem/schema`): ports and bundles
   * that give erasers with the same target share one storage, and a stack runs one of them per target.
   */
  readonly target: string;
  /**
   * Make every row deleted so far unreadable in the storage's files, before resolving. Resolves with notes on what
   * it could not erase and why (e.g. a missing privilege); an empty list when nothing is left behind.
   * Errors: `STORE_UNAVAILABLE` (retryable) when the storage stayed busy or failed; the deletes stand, so a retry
   * of the forget erases again.
   */
  eraseDeleted(): Promise<string[]>;
}

/** A port (or a bundle of ports) whose storage can erase what was deleted: `eraser` is present when it can. */
export interface Erasable {
  readonly eraser?: Eraser | undefined;
}
