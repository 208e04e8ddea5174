/**
 * Deleting rows so that no copy stays in the table's files (`forget`, docs/safety.md). A LanceDB delete only records
 * the rows in a deletion file; the data file keeps them until compaction rewrites its fragment, and compaction leaves
 * a fragment alone when it has no small neighbour to merge with and under 10 % of its rows are deleted (LanceDB's
 * `materialize_deletions_threshold`, which the JavaScript API does not expose). So the rows that share a fragment
 * with a deleted row are rewritten into a new fragment (an update that sets a column to itself), which leaves the old
 * fragment wholly deleted; the caller's `optimizeTables(…, { cleanupOlderThan: new Date() })` then drops it, the old
 * table versions and the index files that still name the deleted rows.
 */
import type { Table } from '@lancedb/lancedb';
import { chunked } from './sql.js';

/** A row address is `fragment id << 32 | offset` (`_rowaddr`, which is also `_rowid` without stable row ids). */
const FRAGMENT_SHIFT = 32n;

function fragmentRange(fragment: bigint): string {
  return `(_rowaddr >= ${fragment << FRAGMENT_SHIFT} AND _rowaddr < ${(fragment + 1n) << FRAGMENT_SHIFT})`;
}

/** The fragments holding a row `where` matches. */
async function fragmentsOf(table: Table, where: string): Promise<bigint[]> {
  const found = await table.query().where(where).withRowId().select([]).toArray();
  return [...new Set(found.map((r) => BigInt(r._rowid as bigint | number) >> FRAGMENT_SHIFT))];
}

/** Rewrite the rows still live in `fragments` into a new fragment (an update that sets a column to itself). */
async function rewriteMates(table: Table, fragments: readonly bigint[]): Promise<void> {
  if (fragments.length === 0) return;
  const [column] = (await table.schema()).fields.map((f) => f.name);
  if (column === undefined) return;
  for (const batch of chunked(fragments, 50)) {
    const mates = batch.map(fragmentRange).join(' OR ');
    if ((await table.countRows(mates)) > 0) await table.update({ where: mates, valuesSql: { [column]: column } });
  }
}

/**
 * Under the write lock: delete the rows `where` matches and rewrite the other rows of every fragment that held one,
 * so that compaction and cleanup (run by the caller next) remove every copy of the deleted rows. Returns the number of
 * rows deleted.
 */
export async function eraseRows(table: Table, where: string): Promise<number> {
  const fragments = await fragmentsOf(table, where);
  if (fragments.length === 0) return 0;
  const { numDeletedRows } = await table.delete(where);
  await rewriteMates(table, fragments);
  return numDeletedRows;
}

/**
 * Under the write lock: `change` rewrites the rows `where` matches (a merge-insert or update of new values, which
 * leaves their old values in the fragments that held them); then the other rows of those fragments are rewritten too,
 * so that compaction and cleanup (run by the caller next) remove every copy of the old values.
 */
export async function replaceRows<T>(table: Table, where: string, change: () => Promise<T>): Promise<T> {
  const fragments = await fragmentsOf(table, where);
  const result = await change();
  await rewriteMates(table, fragments);
  return result;
}
