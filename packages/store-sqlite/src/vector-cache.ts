/**
 * The vector index's lists held in memory: one entry per list (its rids, its int8 codes one row after another, and
 * each row's squared code norm), kept true by the per-connection read cache (`read-cache.ts`: own writes drop the
 * lists they touched, another connection's commit drops everything, transactions bypass it). A probe scores every row
 * of the probed lists with the int8 kernel in one call, instead of one sqlite-vec call per row.
 *
 * Distances are computed as sqlite-vec's `vec_distance_cosine` on two int8 vectors does (1 − dot / (|a| |b|), rounded
 * to a 32-bit float; a zero vector, NULL in SQL, counts as 1 as the search counts it), so that the rows picked for the exact re-rank are the same whether the
 * cache is on or off. sqlite-vec sums in 32-bit floats, exact while the sums stay below 2^24 (every dimension up to
 * 1,040); beyond that its sums round and the two orders may differ by that rounding.
 */
import type { Database, Statement } from 'better-sqlite3';
import { int8Kernel, int8Stride } from './int8-kernel.js';
import { type CachedEntry, createReadCache } from './read-cache.js';

interface ListEntry extends CachedEntry {
  readonly dimension: number;
  readonly rids: Float64Array;
  /** rows × int8Stride(dimension) bytes, zero after each row's `dimension` values. */
  readonly codes: Int8Array;
  /** Σ code² of each row. */
  readonly norms: Int32Array;
}

/** Scanned rows: row i is `rids[i]` at int8 cosine distance `distances[i]` from the query. */
export interface ScoredRows {
  rids: Float64Array;
  distances: Float64Array;
}

export interface ListCache {
  /**
   * Every row of `lists` with its int8 cosine distance to `query` (1 for a zero vector, where SQL gives NULL and the
   * search counts it as 1); null when the cache cannot be used now (inside a transaction, or turned off), and the
   * SQL scan must run.
   */
  scan(lists: readonly number[], query: Int8Array): ScoredRows | null;
  /** Drop every list (the index was retrained: list ids mean other lists now). */
  clear(): void;
  /** Lists and bytes held (for tests and diagnostics). */
  stats(): { entries: number; bytes: number };
}

/** Bytes an entry keeps besides its arrays (object headers, the map slot). */
const ENTRY_OVERHEAD = 128;

export function createListCache(db: Database, stmt: (sql: string) => Statement, budgetBytes: number): ListCache {
  const cache = createReadCache<number, ListEntry>(db, stmt, {
    name: 'vec_ivf',
    table: 'vec_ivf',
    key: '$.list',
    toKey: Number,
    budgetBytes,
  });
  const kernel = int8Kernel();
  let broken = false;

  function usable(): boolean {
    if (broken) return false;
    try {
      return cache.sync();
    } catch {
      // A file this connection cannot write TEMP objects for (e.g. opened read-only): the SQL scan it is.
      broken = true;
      return false;
    }
  }

  /** Read the missing lists in one statement (the table is clustered by list, so rows come list by list). */
  function load(missing: readonly number[], dimension: number): Map<number, ListEntry> {
    const stride = int8Stride(dimension);
    const rows = stmt(
      `SELECT list, rid, q FROM vec_ivf WHERE list IN (SELECT value FROM json_each(?)) ORDER BY list, rid`,
    )
      .raw()
      .all(JSON.stringify(missing)) as [number, number, Buffer | null][];
    const loaded = new Map<number, ListEntry>();
    let from = 0;
    const build = (to: number) => {
      let count = 0;
      for (let k = from; k < to; k++) if (rows[k]![2]?.length === dimension) count++;
      const rids = new Float64Array(count);
      const codes = new Int8Array(count * stride);
      const norms = new Int32Array(count);
      let r = 0;
      for (let k = from; k < to; k++) {
        const [, rid, q] = rows[k]!;
        if (q?.length !== dimension) continue;
        const code = new Int8Array(q.buffer, q.byteOffset, dimension);
        codes.set(code, r * stride);
        let norm = 0;
        for (let i = 0; i < dimension; i++) norm += code[i]! * code[i]!;
        rids[r] = rid;
        norms[r] = norm;
        r++;
      }
      const bytes = ENTRY_OVERHEAD + rids.byteLength + codes.byteLength + norms.byteLength;
      loaded.set(rows[from]![0], { dimension, rids, codes, norms, bytes });
    };
    for (let k = 1; k <= rows.length; k++) {
      if (k === rows.length || rows[k]![0] !== rows[from]![0]) {
        build(k);
        from = k;
      }
    }
    for (const list of missing) {
      if (!loaded.has(list)) {
        const entry = { dimension, rids: new Float64Array(0), codes: new Int8Array(0), norms: new Int32Array(0) };
        loaded.set(list, { ...entry, bytes: ENTRY_OVERHEAD });
      }
    }
    return loaded;
  }

  return {
    scan(lists, query) {
      if (!usable()) return null;
      const dimension = query.length;
      const entries: ListEntry[] = [];
      const missing: number[] = [];
      for (const list of lists) {
        const entry = cache.get(list);
        if (entry === undefined || entry.dimension !== dimension) missing.push(list);
        else entries.push(entry);
      }
      if (missing.length > 0) {
        for (const [list, entry] of load(missing, dimension)) {
          cache.set(list, entry);
          entries.push(entry);
        }
      }
      const stride = int8Stride(dimension);
      const dots = kernel.dots(
        query,
        entries.map((e) => e.codes),
        stride,
      );
      let queryNorm = 0;
      for (let i = 0; i < dimension; i++) queryNorm += query[i]! * query[i]!;
      const scale = Math.sqrt(queryNorm);
      const out: ScoredRows = { rids: new Float64Array(dots.length), distances: new Float64Array(dots.length) };
      let r = 0;
      for (const entry of entries) {
        const { rids, norms } = entry;
        out.rids.set(rids, r);
        for (let k = 0; k < rids.length; k++, r++) {
          const d = Math.fround(1 - dots[r]! / (scale * Math.sqrt(norms[k]!)));
          out.distances[r] = Number.isNaN(d) ? 1 : d;
        }
      }
      return out;
    },

    clear() {
      cache.clear();
    },

    stats() {
      return cache.stats();
    },
  };
}
