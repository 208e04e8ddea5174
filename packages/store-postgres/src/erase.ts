/**
 * Erasing deleted rows from the files of a PostgreSQL server (`forget`, docs/safety.md). A DELETE leaves the row as a
 * dead tuple in its heap page, its index entries in the indexes (a GIN index even keeps a lexeme whose posting list
 * emptied) and its insert record in the WAL segments (pg_wal). A plain VACUUM marks the space free but leaves the
 * bytes in the page until they are overwritten; what removes them:
 *
 * 1. `VACUUM (FULL, ANALYZE)` of every table of the schema: each table and its indexes (TOAST too) are rewritten into
 *    new files and the old files are truncated to zero bytes when the command commits; ANALYZE replaces the column
 *    statistics (pg_statistic), which sample values; as a superuser, pg_statistic itself is rewritten as well.
 *    Needs ownership of the tables (or superuser); takes an ACCESS EXCLUSIVE lock on each table while it is rewritten.
 * 2. `pg_switch_wal()` then `CHECKPOINT`: the WAL moves to a new segment and the checkpoint removes the segments
 *    before it, which hold the deleted rows' records. Needs superuser (or EXECUTE on pg_switch_wal, and pg_checkpoint).
 *    The server removes them only with `wal_recycle = off` (else it renames them for reuse, contents intact until
 *    overwritten), no `wal_keep_size`, no replication slot holding them and no archiving; copies already archived
 *    or streamed to a standby are out of its reach.
 *
 * Before 1, it waits for the transactions that may still see the deleted rows to end: VACUUM FULL copies a dead row
 * that a snapshot of another session (an open transaction, an autovacuum ANALYZE) can still see.
 *
 * What a role lacks the privilege for, or what the server's settings keep, is returned as notes, not thrown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Eraser } from '@mem/core/adapter';
import { ADAPTER, exec, quoteIdent, type Sql, sqlState, toStoreError } from './connection.js';

/** How long the eraser waits for older snapshots of other sessions to go before it rewrites the tables anyway. */
const HORIZON_WAIT_MS = 30_000;

/** The target of a schema's eraser: one per database and schema, whichever pool or store opened it. */
export function postgresTarget(target: string, schema: string): string {
  return `postgres:${target}/${schema}`;
}

const INSUFFICIENT_PRIVILEGE = '42501';

interface ServerState {
  superuser: boolean;
  walRecycle: string;
  walKeepSize: string;
  archiveMode: string;
  slots: number;
}

async function serverState(sql: Sql): Promise<ServerState> {
  const [row] = await exec<ServerState[]>(
    sql,
    `SELECT current_setting('is_superuser') = 'on' AS superuser,
            current_setting('wal_recycle') AS "walRecycle",
            current_setting('wal_keep_size') AS "walKeepSize",
            current_setting('archive_mode') AS "archiveMode",
            (SELECT count(*)::int FROM pg_replication_slots) AS slots`,
  );
  return row as ServerState;
}

/** Run a statement that needs a privilege: true when it ran, false (with a note) when the role lacks it. */
async function privileged(sql: Sql, statement: string, notes: string[], missing: string): Promise<boolean> {
  try {
    await exec(sql, statement);
    return true;
  } catch (error) {
    if (sqlState(error) !== INSUFFICIENT_PRIVILEGE) throw error;
    notes.push(missing);
    return false;
  }
}

/**
 * Wait (polling, up to HORIZON_WAIT_MS) until no other session of the database holds a snapshot or a transaction that
 * began before this call: one that could still see the rows the forget deleted, which VACUUM FULL would then keep.
 * Returns the pids still holding one at the deadline (empty when none). Sessions of other roles are visible only to
 * a superuser or pg_read_all_stats; for others the wait covers the role's own sessions.
 */
async function waitForOlderSnapshots(sql: Sql): Promise<number[]> {
  const [start] = await exec<{ horizon: string }[]>(
    sql,
    `SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint % 4294967296)::text AS horizon`,
  );
  const horizon = start!.horizon;
  const deadline = Date.now() + HORIZON_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const older = await exec<{ pid: number }[]>(
      sql,
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND (age(backend_xmin) > age($1::text::xid) OR age(backend_xid) > age($1::text::xid))`,
      [horizon],
    );
    if (older.length === 0 || Date.now() >= deadline) return older.map((r) => r.pid);
    await sleep(Math.min(5 * 2 ** attempt, 200));
  }
}

/**
 * The eraser of one schema (`Eraser`, run by `forget` after its deletes): rewrites every table of the schema, then
 * moves the WAL past the deleted rows' records and checkpoints, noting what the role or the server settings prevent.
 */
export function postgresEraser(sql: Sql, schema: string, target: string): Eraser {
  return {
    target: postgresTarget(target, schema),
    async eraseDeleted() {
      const notes: string[] = [];
      try {
        const tables = await exec<{ name: string; mine: boolean }[]>(
          sql,
          `SELECT c.relname AS name, pg_has_role(c.relowner, 'USAGE') AS mine FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
          [schema],
        );
        const notMine = tables.filter((t) => !t.mine).map((t) => t.name);
        if (notMine.length > 0)
          notes.push(
            `${ADAPTER}: deleted rows stay in the data files of ${notMine.join(', ')} in schema ${schema} until autovacuum and later writes overwrite them: the role does not own these tables, so it cannot VACUUM FULL them. Run forget as the tables' owner, or VACUUM FULL them as their owner.`,
          );
        const holding = await waitForOlderSnapshots(sql);
        if (holding.length > 0)
          notes.push(
            `${ADAPTER}: session(s) ${holding.join(', ')} of the database still hold a transaction or snapshot from before the forget after ${HORIZON_WAIT_MS / 1000} s, so VACUUM FULL kept the deleted rows they can see. Retry the forget once they end (see pg_stat_activity).`,
          );
        const mine = tables.filter((t) => t.mine).map((t) => `${quoteIdent(schema)}.${quoteIdent(t.name)}`);
        // One statement per table: a failure names its table, and each lock is held only while its table is rewritten.
        for (const table of mine) await exec(sql, `VACUUM (FULL, ANALYZE) ${table}`);
        const state = await serverState(sql);
        if (state.superuser) await exec(sql, 'VACUUM FULL pg_catalog.pg_statistic');
        else
          notes.push(
            `${ADAPTER}: the column statistics of the previous ANALYZE (pg_statistic, sampled values) stay in its data file until it is vacuumed: only a superuser can VACUUM FULL pg_catalog.pg_statistic.`,
          );
        const switched = await privileged(
          sql,
          'SELECT pg_switch_wal()',
          notes,
          `${ADAPTER}: the deleted rows' WAL records stay in pg_wal until the server recycles their segment: the role may not call pg_switch_wal() (superuser, or GRANT EXECUTE ON FUNCTION pg_switch_wal() TO the role).`,
        );
        const checkpointed = await privileged(
          sql,
          'CHECKPOINT',
          notes,
          `${ADAPTER}: the deleted rows' WAL records stay in pg_wal until the next checkpoint removes their segment: the role may not run CHECKPOINT (superuser, or GRANT pg_checkpoint TO the role).`,
        );
        if (switched && checkpointed) {
          if (state.walRecycle === 'on')
            notes.push(
              `${ADAPTER}: the server recycles WAL segments (wal_recycle = on), so the segment that held the deleted rows' WAL records is kept for reuse with its contents until it is overwritten. Set wal_recycle = off for forget to remove it.`,
            );
          if (state.walKeepSize !== '0' || state.slots > 0)
            notes.push(
              `${ADAPTER}: the server keeps older WAL segments (wal_keep_size = ${state.walKeepSize}, ${state.slots} replication slot(s)), which still hold the deleted rows' WAL records until they are released.`,
            );
        }
        if (state.archiveMode !== 'off')
          notes.push(
            `${ADAPTER}: WAL archiving is on (archive_mode = ${state.archiveMode}): archived segments and base backups keep the deleted rows; erase them where the archive is kept.`,
          );
        return notes;
      } catch (error) {
        throw toStoreError(error, `erasing deleted rows from the files of schema ${schema}`, target);
      }
    },
  };
}
