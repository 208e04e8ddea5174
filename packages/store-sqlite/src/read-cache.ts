/**
 * Per-connection caches of search-index data read from the file (the vector index's int8 lists, the keyword index's
 * decoded posting blocks), kept true whoever writes the file:
 *
 * - Another connection's commit (another process, or another store on the same file) changes `PRAGMA data_version`
 *   as seen from this connection: the whole cache is dropped.
 * - This connection's own writes are recorded by TEMP triggers on the indexed table (they fire for this connection
 *   only, whichever code path writes, including triggers on other tables) into a TEMP table of changed keys; the
 *   next read drops exactly those entries. A write that rolls back also rolls back what it recorded, and leaves the
 *   cache describing the committed rows it describes already.
 * - Entries are read and filled only outside transactions (each read sees committed rows); a read inside a write
 *   transaction bypasses the cache.
 *
 * The cache holds at most `budgetBytes` (least recently used entries go first); 0 turns it off.
 */
import type { Database, Statement } from 'better-sqlite3';

/**
 * `PRAGMA data_version` of the connection: it changes when another connection commits. Every reader goes through
 * here, since the statement is shared (prepared once per connection) and its pluck mode must stay the same for all.
 */
export function readDataVersion(stmt: (sql: string) => Statement): number {
  return stmt('PRAGMA data_version').pluck(true).get() as number;
}

export interface CachedEntry {
  /** Bytes the entry keeps alive (its typed arrays), counted against the budget. */
  readonly bytes: number;
}

export interface ReadCache<K, V extends CachedEntry> {
  /**
   * Bring the cache up to date with committed writes. Returns false when the cache must not be used now (inside a
   * transaction, or turned off); call before each use.
   */
  sync(): boolean;
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  /** Drop every entry (e.g. when the index was retrained). */
  clear(): void;
  /** Entries and bytes held (for tests and diagnostics). */
  stats(): { entries: number; bytes: number };
}

export interface ReadCacheOptions<K> {
  /** Name of the cache, used in the TEMP table and trigger names (letters and underscores). */
  name: string;
  /** The main-database table whose rows the cache copies. */
  table: string;
  /** SQL expression of a row's cache key, written with `$` for the row (`$.list` becomes `new.list` / `old.list`). */
  key: string;
  /** The JavaScript key of what `key` evaluates to. */
  toKey: (sqlValue: unknown) => K;
  budgetBytes: number;
}

export function createReadCache<K, V extends CachedEntry>(
  db: Database,
  stmt: (sql: string) => Statement,
  options: ReadCacheOptions<K>,
): ReadCache<K, V> {
  const { name, table, budgetBytes } = options;
  if (!/^[a-z_]+$/.test(name) || !/^[a-z_]+$/.test(table)) throw new Error(`read cache: bad name ${name}/${table}`);
  const dirty = `mem_cache_${name}`;
  const entries = new Map<K, V>();
  let bytes = 0;
  let dataVersion: unknown;
  let installed = false;

  function install(): void {
    const keyOf = (row: 'new' | 'old') => options.key.replaceAll('$', row);
    db.exec(`
      CREATE TEMP TABLE IF NOT EXISTS ${dirty} (k PRIMARY KEY) WITHOUT ROWID;
      CREATE TEMP TRIGGER IF NOT EXISTS ${dirty}_insert AFTER INSERT ON main.${table} BEGIN
        INSERT OR IGNORE INTO ${dirty} (k) VALUES (${keyOf('new')});
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS ${dirty}_delete AFTER DELETE ON main.${table} BEGIN
        INSERT OR IGNORE INTO ${dirty} (k) VALUES (${keyOf('old')});
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS ${dirty}_update AFTER UPDATE ON main.${table} BEGIN
        INSERT OR IGNORE INTO ${dirty} (k) VALUES (${keyOf('old')});
        INSERT OR IGNORE INTO ${dirty} (k) VALUES (${keyOf('new')});
      END;
    `);
    installed = true;
  }

  function clear(): void {
    entries.clear();
    bytes = 0;
  }

  return {
    sync() {
      if (budgetBytes <= 0 || db.inTransaction) return false;
      const version = readDataVersion(stmt);
      if (!installed || version !== dataVersion) {
        // First use, or another connection committed (it may also have dropped and recreated the table, which
        // drops the TEMP triggers with it): start over.
        clear();
        install();
        stmt(`DELETE FROM ${dirty}`).run();
        dataVersion = version;
        return true;
      }
      const changed = stmt(`SELECT k FROM ${dirty}`).pluck().all();
      if (changed.length > 0) {
        for (const k of changed) {
          const key = options.toKey(k);
          const old = entries.get(key);
          if (old !== undefined) {
            bytes -= old.bytes;
            entries.delete(key);
          }
        }
        stmt(`DELETE FROM ${dirty}`).run();
      }
      return true;
    },

    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        // Most recently used last: Map keeps insertion order.
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },

    set(key, value) {
      if (value.bytes > budgetBytes) return;
      const old = entries.get(key);
      if (old !== undefined) {
        bytes -= old.bytes;
        entries.delete(key);
      }
      entries.set(key, value);
      bytes += value.bytes;
      for (const [k, v] of entries) {
        if (bytes <= budgetBytes) break;
        entries.delete(k);
        bytes -= v.bytes;
      }
    },

    clear,

    stats() {
      return { entries: entries.size, bytes };
    },
  };
}
