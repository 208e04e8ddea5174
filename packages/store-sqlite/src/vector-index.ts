/**
 * The approximate vector index of the SQLite knowledge store: an inverted file (IVF) over the chunks' vectors.
 *
 * - `vec_ivf (rid, list, q)` (tables and triggers in `vector-schema.ts`) holds one row per chunk with an embedding,
 *   keyed by the chunk's rid: its list (a leaf centroid of the two-level quantizer in `ivf.ts`) and an int8 copy of
 *   its vector; the index `vec_ivf_list` finds a list's rows. Triggers on `chunks` keep it complete whoever writes
 *   the file: a new or re-embedded chunk enters list -1 ("pending", always searched exactly) and a deleted chunk
 *   leaves. The store that inserts a
 *   chunk moves it to its list in the same transaction once the index is trained.
 * - `vec_ivf_centroids` holds the quantizer; `meta` holds its generation and dimension, so that every connection
 *   notices a (re)training by another one.
 * - Below `minRows` vectors nothing is trained and search stays exact. Past it, the first write trains the quantizer
 *   on a sample and assigns every vector.
 *
 * A search probes the `nprobe` lists nearest to the query, ranks their rows by the int8 cosine, re-ranks the best
 * `rerank` of them exactly with the full vectors while applying the filters, and adds the pending rows. When fewer
 * than `limit` rows pass the filters among the probed lists it falls back to the exact scan, so a selective filter
 * never loses a memory.
 */
import type { SearchFilter } from '@mem/core/adapter';
import type { Database, Statement } from 'better-sqlite3';
import { assignList, type IvfQuantizer, probeLists, quantizeInt8, trainIvf, unitVector } from './ivf.js';
import { blobToVector, vectorToBlob } from './knowledge/rows.js';
import { selectBest } from './select-best.js';
import { createListCache, type ScoredRows } from './vector-cache.js';
import { PENDING } from './vector-schema.js';
import { filed, listBound, newSplitState, splitOversized, syncSizes } from './vector-split.js';

export interface VectorIndexOptions {
  /** 'ivf' (default): an inverted file past `minRows` vectors; 'none': always the exact scan. */
  type?: 'ivf' | 'none';
  /** Vectors needed before the index is trained; below it search is exact. Default 20000. */
  minRows?: number;
  /** Number of lists (leaf centroids) trained at `minRows`. Default 1024. Splits add lists as the file grows. */
  lists?: number;
  /**
   * Lists probed per search while the index has `lists` lists. Default 32. Past that, as splits add lists, a search
   * probes `nprobe × √(lists now / lists)`.
   */
  nprobe?: number;
  /**
   * A list is split in two (2-means over its vectors) once it holds more than `splitFactor` × the number of lists
   * rows (and more than `splitMinRows`); lists then grow with √N. Default 0.25; 0: never split.
   */
  splitFactor?: number;
  /** The smallest list length that can be split. Default 128. */
  splitMinRows?: number;
  /** Candidates (by int8 cosine) re-ranked exactly with the full vectors. Default 200 (at least 10 × limit). */
  rerank?: number;
  /**
   * MiB of probed lists kept in memory per connection (their int8 codes: about dimension + 12 bytes per vector),
   * scored there instead of by SQL. Default 1024 (the lists of ~2,000,000 vectors of 512 dimensions); 0 turns the cache off.
   */
  cacheMiB?: number;
}

export interface ResolvedVectorIndexOptions {
  type: 'ivf' | 'none';
  minRows: number;
  lists: number;
  nprobe: number;
  rerank: number;
  splitFactor: number;
  splitMinRows: number;
  cacheMiB: number;
}

export const DEFAULT_VECTOR_INDEX: ResolvedVectorIndexOptions = {
  type: 'ivf',
  minRows: 20_000,
  lists: 1024,
  nprobe: 32,
  rerank: 200,
  splitFactor: 0.125,
  splitMinRows: 128,
  cacheMiB: 1024,
};

export function resolveVectorIndexOptions(options: VectorIndexOptions | undefined): ResolvedVectorIndexOptions {
  const out = { ...DEFAULT_VECTOR_INDEX, ...options };
  for (const name of ['minRows', 'lists', 'nprobe', 'rerank', 'splitMinRows'] as const) {
    const value = out[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new Error(`index.vector.${name} must be a positive integer (got ${value})`);
    }
  }
  if (!(typeof out.cacheMiB === 'number' && Number.isFinite(out.cacheMiB) && out.cacheMiB >= 0)) {
    throw new Error(
      `index.vector.cacheMiB must be a number of MiB >= 0, or 0 to turn the list cache off (got ${String(out.cacheMiB)})`,
    );
  }
  if (!(Number.isFinite(out.splitFactor) && out.splitFactor >= 0)) {
    throw new Error(`index.vector.splitFactor must be a finite number >= 0 (got ${out.splitFactor})`);
  }
  if (out.type !== 'ivf' && out.type !== 'none') throw new Error(`index.vector.type must be 'ivf' or 'none'`);
  return out;
}

const META_GENERATION = 'vector_index.generation';
const META_DIMENSION = 'vector_index.dimension';
const ASSIGN_PAGE = 5_000;
const SAMPLE_MAX = 16_384;
/** Lists one write may split (each reads and rewrites one list: a few hundred rows). */
const SPLITS_PER_WRITE = 8;

/**
 * The generation after `current`: a counter plus a random tag, so that a generation made by a write that rolled back
 * can never be mistaken for another connection's later one with the same counter.
 */
function nextGeneration(current: string | undefined): string {
  const n = Number.parseInt(current ?? '0', 10);
  return `${(Number.isFinite(n) ? n : 0) + 1}-${Math.floor(Math.random() * 0x100000000).toString(16)}`;
}

/** Lists probed when the index has `lists` lists: `nprobe` scaled by √(lists / trained lists), never below it. */
export function probeCount(options: ResolvedVectorIndexOptions, lists: number): number {
  return Math.ceil(options.nprobe * Math.sqrt(Math.max(1, lists / options.lists)));
}

/** The bytes of an int8 code (no copy). */
function int8Blob(v: Int8Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * The `want` rows of smallest distance, ties by rid, as the rows to re-rank: selection by a bounded max-heap of row
 * positions instead of sorting every scanned row.
 */
export function bestByDistance(rows: ScoredRows, want: number): number[] {
  const { rids, distances } = rows;
  const worse = (a: number, b: number) =>
    distances[a]! > distances[b]! || (distances[a] === distances[b] && rids[a]! > rids[b]!);
  const heap = selectBest(rids.length, want, worse);
  return heap.map((row) => rids[row]!);
}

export interface VectorHitRow {
  rid: number;
  id: string;
  d: number;
}

export interface VectorIndex {
  readonly options: ResolvedVectorIndexOptions;
  /** Inside a write transaction, before inserting chunks: pick up a quantizer trained by another connection. */
  refresh(): void;
  /**
   * Inside a write transaction, after a chunk row was inserted (and entered the pending list by trigger): remember it,
   * so that `flush` moves it to its list when the index is trained.
   */
  placeInserted(rid: number | bigint, embedding: Float32Array | null): void;
  /** Inside the same write transaction, after its inserts: move the remembered rows to their lists in one pass. */
  flush(): void;
  /** Inside a write transaction: assign pending rows, and train the quantizer once there are enough vectors. */
  maintain(): void;
  /** Inside a write transaction, after embeddings were replaced with `dimension`-long ones. */
  embeddingsChanged(dimension: number): void;
  /**
   * The best `limit` rows by exact cosine distance among the probed lists and pending rows, filtered; null when
   * the index cannot answer (untrained, another dimension, too few rows passing the filter) and the exact scan must.
   */
  search(
    vector: Float32Array,
    limit: number,
    filter: SearchFilter,
    filterClause: (filter: SearchFilter, params: unknown[]) => string,
  ): VectorHitRow[] | null;
  /** True when a trained quantizer is in use (for tests and diagnostics). */
  trained(): boolean;
  /** Lists and bytes held by the in-memory list cache (for tests and diagnostics). */
  cacheStats(): { entries: number; bytes: number };
}

export function createVectorIndex(
  db: Database,
  stmt: (sql: string) => Statement,
  options: ResolvedVectorIndexOptions,
): VectorIndex {
  let quantizer: IvfQuantizer | null = null;
  let loadedGeneration = '';
  // Untrained: vectors counted at the last check, and rows this connection placed since (counting is a scan).
  let counted = -1;
  let placedSince = 0;
  // Rows inserted by the current write transaction, placed in bulk by `flush` before it commits.
  let inserted: { rid: number | bigint; embedding: Float32Array }[] = [];
  const splits = newSplitState();
  const lists = createListCache(db, stmt, Math.floor(options.cacheMiB * 1024 * 1024));

  function metaValue(key: string): string | undefined {
    return (stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  function putMeta(key: string, value: string): void {
    stmt('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      value,
    );
  }

  /** The quantizer of the file's current generation (reloaded when another connection retrained). */
  function current(): IvfQuantizer | null {
    const generation = metaValue(META_GENERATION) ?? '';
    if (generation === loadedGeneration) return quantizer;
    loadedGeneration = generation;
    quantizer = null;
    lists.clear();
    splits.atMost.clear();
    const dimension = Number(metaValue(META_DIMENSION));
    if (generation === '' || !(dimension > 0)) return null;
    const rows = stmt('SELECT level, idx, parent, centroid FROM vec_ivf_centroids ORDER BY level, idx').all() as {
      level: number;
      idx: number;
      parent: number;
      centroid: Buffer;
    }[];
    const coarse: Float32Array[] = [];
    const leaves: Float32Array[] = [];
    const leafParent: number[] = [];
    for (const row of rows) {
      if (row.level === 0) coarse.push(blobToVector(row.centroid));
      else {
        leaves.push(blobToVector(row.centroid));
        leafParent.push(row.parent);
      }
    }
    if (coarse.length === 0 || leaves.length === 0) return null;
    quantizer = { dimension, coarse, leaves, leafParent };
    return quantizer;
  }

  /**
   * Move rows from the pending list to their lists, in bulk: the lists and int8 copies are computed for the whole
   * set first, then each row gets its list and code in place, in (list, rid) order, so that the list index is written
   * list by list. A row that is no longer pending (placed or deleted meanwhile) is skipped.
   */
  function placeMany(q: IvfQuantizer, rows: readonly { rid: number | bigint; embedding: Float32Array }[]): void {
    if (rows.length === 0) return;
    const placed: { list: number; rid: number | bigint; q: Buffer }[] = [];
    for (const row of rows) {
      if (row.embedding.length !== q.dimension) continue;
      placed.push({ list: assignList(q, row.embedding), rid: row.rid, q: int8Blob(quantizeInt8(row.embedding)) });
    }
    placed.sort((a, b) => a.list - b.list || (a.rid < b.rid ? -1 : a.rid > b.rid ? 1 : 0));
    const enter = stmt(`UPDATE vec_ivf SET list = ?, q = ? WHERE rid = ? AND list = ${PENDING}`);
    for (const p of placed) {
      if (enter.run(p.list, p.q, p.rid).changes === 1) filed(splits, p.list);
    }
  }

  /** Assign pending rows of the index's dimension, a page at a time; `max` bounds the work of one call. */
  function assignPending(q: IvfQuantizer, max: number): void {
    let done = 0;
    while (done < max) {
      const rows = stmt(
        `SELECT v.rid AS rid, c.embedding AS embedding FROM vec_ivf v CROSS JOIN chunks c ON c.rid = v.rid
         WHERE v.list = ${PENDING} AND length(c.embedding) = ? LIMIT ?`,
      ).all(q.dimension * 4, Math.min(ASSIGN_PAGE, max - done)) as { rid: number; embedding: Buffer }[];
      placeMany(
        q,
        rows.map((row) => ({ rid: row.rid, embedding: blobToVector(row.embedding) })),
      );
      done += rows.length;
      if (rows.length < ASSIGN_PAGE) break;
    }
  }

  function train(dimension: number, total: number): void {
    const step = Math.max(1, Math.floor(total / SAMPLE_MAX));
    const sample: Float32Array[] = [];
    const rows = stmt(
      `SELECT c.embedding AS embedding FROM vec_ivf v CROSS JOIN chunks c ON c.rid = v.rid
       WHERE length(c.embedding) = ? AND v.rid % ? = 0`,
    ).all(dimension * 4, step) as { embedding: Buffer }[];
    for (const row of rows) sample.push(blobToVector(row.embedding));
    if (sample.length < Math.min(options.minRows, 2)) return;
    const q = trainIvf(sample, { lists: options.lists });
    stmt('DELETE FROM vec_ivf_centroids').run();
    const insert = stmt('INSERT INTO vec_ivf_centroids (level, idx, parent, centroid) VALUES (?, ?, ?, ?)');
    for (const [i, c] of q.coarse.entries()) insert.run(0, i, -1, vectorToBlob(c));
    for (const [i, c] of q.leaves.entries()) insert.run(1, i, q.leafParent[i]!, vectorToBlob(c));
    stmt(`UPDATE vec_ivf SET list = ${PENDING}, q = NULL WHERE list <> ${PENDING}`).run();
    lists.clear();
    splits.atMost.clear();
    const generation = nextGeneration(metaValue(META_GENERATION));
    putMeta(META_DIMENSION, String(dimension));
    putMeta(META_GENERATION, generation);
    quantizer = q;
    loadedGeneration = generation;
    assignPending(q, Number.MAX_SAFE_INTEGER);
  }

  /** The probed lists' rows with sqlite-vec's int8 cosine (a NULL distance — a zero vector — counts as 1). */
  function scanInSql(probed: readonly number[], qcodes: Int8Array): ScoredRows {
    const rows = stmt(
      `SELECT rid, vec_distance_cosine(vec_int8(q), vec_int8(?)) AS d FROM vec_ivf
       WHERE list IN (SELECT value FROM json_each(?))`,
    )
      .raw()
      .all(int8Blob(qcodes), JSON.stringify(probed)) as [number, number | null][];
    const rids = new Float64Array(rows.length);
    const distances = new Float64Array(rows.length);
    for (const [i, [rid, d]] of rows.entries()) {
      rids[i] = rid;
      distances[i] = d ?? 1;
    }
    return { rids, distances };
  }

  return {
    options,

    refresh() {
      // A write that threw before its flush rolled back: its rows are gone, and so is their buffer.
      inserted = [];
      syncSizes(stmt, splits);
      if (current() === null) splits.touched.clear();
    },

    placeInserted(rid, embedding) {
      if (embedding === null) return;
      placedSince++;
      const q = quantizer;
      // `refresh` runs at the start of each write and loads `quantizer` from the file.
      if (q === null || embedding.length !== q.dimension) return;
      inserted.push({ rid, embedding });
    },

    flush() {
      const rows = inserted;
      inserted = [];
      const q = quantizer;
      if (q !== null) placeMany(q, rows);
    },

    maintain() {
      const q = current();
      if (q !== null) {
        syncSizes(stmt, splits);
        assignPending(q, ASSIGN_PAGE);
        const bound = listBound(q.leaves.length, options.splitFactor, options.splitMinRows);
        const grown = splitOversized(stmt, q, splits, bound, SPLITS_PER_WRITE);
        if (grown !== q) {
          const generation = nextGeneration(metaValue(META_GENERATION));
          putMeta(META_GENERATION, generation);
          quantizer = grown;
          loadedGeneration = generation;
        }
        return;
      }
      const info = stmt('SELECT value FROM meta WHERE key = ?').get('embedding.dimension') as
        | { value: string }
        | undefined;
      const dimension = Number(info?.value);
      if (!(dimension > 0)) return;
      // Count again once this connection alone could have crossed the threshold, or every 1,000 of its rows.
      if (counted >= 0 && counted + placedSince < options.minRows && placedSince < 1_000) return;
      const total = (stmt('SELECT count(*) AS n FROM vec_ivf').get() as { n: number }).n;
      counted = total;
      placedSince = 0;
      if (total >= options.minRows) train(dimension, total);
    },

    embeddingsChanged(dimension) {
      const q = current();
      if (q !== null && q.dimension !== dimension) {
        // Another embedding space: the lists mean nothing now. Forget them; the next write trains again.
        stmt('DELETE FROM vec_ivf_centroids').run();
        stmt(`UPDATE vec_ivf SET list = ${PENDING}, q = NULL WHERE list <> ${PENDING}`).run();
        lists.clear();
        splits.atMost.clear();
        const generation = nextGeneration(metaValue(META_GENERATION));
        putMeta(META_GENERATION, generation);
        putMeta(META_DIMENSION, '0');
        quantizer = null;
        loadedGeneration = generation;
      }
    },

    search(vector, limit, filter, filterClause) {
      const q = current();
      if (q === null || vector.length !== q.dimension) return null;
      const unit = unitVector(vector);
      let nonZero = false;
      for (let i = 0; i < unit.length && !nonZero; i++) nonZero = unit[i] !== 0;
      if (!nonZero) return null;
      // The nearest lists, plus the list the query itself would be assigned to (rows equal to it live there).
      const probed = [...new Set([assignList(q, unit), ...probeLists(q, unit, probeCount(options, q.leaves.length))])];
      const qcodes = quantizeInt8(vector);
      const full = vectorToBlob(vector);
      const byteLength = vector.length * 4;
      // Pending rows (written before training, by a writer without the index, or not yet assigned): exact.
      const pendingParams: unknown[] = [full];
      const pendingWhere = filterClause(filter, pendingParams);
      pendingParams.push(byteLength, limit);
      const pending = stmt(
        `SELECT c.rid AS rid, c.id AS id, coalesce(vec_distance_cosine(c.embedding, ?), 1.0) AS d
         FROM vec_ivf v CROSS JOIN chunks c ON c.rid = v.rid
         WHERE v.list = ${PENDING} AND ${pendingWhere} AND c.embedding IS NOT NULL AND length(c.embedding) = ?
         ORDER BY d, c.rid LIMIT ?`,
      ).all(...pendingParams) as VectorHitRow[];
      let want = Math.max(options.rerank, limit * 10);
      // The probed lists' rows with their int8 distances: scored in memory from the list cache, or (inside a
      // transaction, or with the cache off) by sqlite-vec. The distances come back unsorted and the best `want` are
      // picked here: an ORDER BY … LIMIT in SQL cost as much again as the distances themselves.
      const scanned = lists.scan(probed, qcodes) ?? scanInSql(probed, qcodes);
      for (;;) {
        const candidates = bestByDistance(scanned, want);
        // json_each drives the join (an `IN (SELECT … json_each)` lets the planner walk the whole space instead).
        const params: unknown[] = [full, JSON.stringify(candidates)];
        const where = filterClause(filter, params);
        params.push(byteLength);
        const exact = stmt(
          `SELECT c.rid AS rid, c.id AS id, coalesce(vec_distance_cosine(c.embedding, ?), 1.0) AS d
           FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value WHERE ${where}
           AND c.embedding IS NOT NULL AND length(c.embedding) = ?`,
        ).all(...params) as VectorHitRow[];
        if (exact.length + pending.length >= limit) {
          const all = [...exact, ...pending];
          all.sort((a, b) => a.d - b.d || a.rid - b.rid);
          return all.slice(0, limit);
        }
        // Too few rows passed the filters: look further down the probed lists, then give up to the exact scan.
        if (scanned.rids.length <= want) return null;
        want *= 8;
      }
    },

    trained() {
      return current() !== null;
    },

    cacheStats() {
      return lists.stats();
    },
  };
}
