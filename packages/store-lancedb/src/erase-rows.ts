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

/**
 * Under the write lock: delete the rows `where` matches and rewrite the other rows of every fragment that held one,
 * so that compaction and cleanup (run by the caller next) remove every copy of the deleted rows. Returns the number of
 * rows deleted.
 */
export async function eraseRows(table: Table, where: string): Promise<number> {
  const doomed = await table.query().where(where).withRowId().select([]).toArray();
  if (doomed.length === 0) return 0;
  const fragments = [...new Set(doomed.map((r) => BigInt(r._rowid as bigint | number) >> FRAGMENT_SHIFT))];
  const { numDeletedRows } = await table.delete(where);
  const [column] = (await table.schema()).fields.map((f) => f.name);
  if (column === undefined) return numDeletedRows;
  for (const batch of chunked(fragments, 50)) {
    const mates = batch.map(fragmentRange).join(' OR ');
    if ((await table.countRows(mates)) > 0) await table.update({ where: mates, valuesSql: { [column]: column } });
  }
  return numDeletedRows;
}
