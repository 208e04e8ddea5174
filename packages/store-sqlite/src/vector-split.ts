/**
 * Growth of the SQLite vector index (used by `vector-index.ts` only): a list that grew past its bound is split in two
 * by 2-means over its own vectors, inside the write transaction that made it grow. The quantizer trained once at
 * `minRows` thus keeps refining where the file grows (including a topic that did not exist at training time), one
 * list at a time: a split reads and rewrites one list, never the whole index, and search keeps using every other
 * list meanwhile. The split is atomic with its write (a kill -9 leaves the list whole or split, never half), and
 * it bumps the generation in `meta` so that every other connection reloads the leaves before its next search.
 */
import type { Statement } from 'better-sqlite3';
import { type IvfQuantizer, splitTwo } from './ivf.js';
import { blobToVector, vectorToBlob } from './knowledge/rows.js';
import { readDataVersion } from './read-cache.js';

/** The bound of a list's length: `splitFactor` × the number of lists, at least `splitMinRows` (0 factor: no bound). */
export function listBound(lists: number, splitFactor: number, splitMinRows: number): number {
  if (!(splitFactor > 0)) return Number.POSITIVE_INFINITY;
  return Math.max(splitMinRows, Math.ceil(splitFactor * lists));
}

export interface SplitState {
  /** Lists that received rows since the last check (only those can have crossed the bound). */
  touched: Set<number>;
  /** Lists whose vectors did not separate, with their length then: not tried again before they double. */
  stuck: Map<number, number>;
  /**
   * An upper bound of the length of lists this connection counted: exact when counted, raised by each row this
   * connection files there (`filed`), set again by a split. A delete or a rolled-back write only shortens a list, so
   * the bound holds through them; only another connection's commit can lengthen a list, and `syncSizes` forgets
   * every bound then. A touched list whose bound is within the split bound is not counted again, so a bulk load
   * counts each list about once instead of once per write.
   */
  atMost: Map<number, number>;
  /** `PRAGMA data_version` when `atMost` was last known to hold. */
  version: number;
}

/** A fresh state: nothing touched, nothing counted. */
export function newSplitState(): SplitState {
  return { touched: new Set(), stuck: new Map(), atMost: new Map(), version: -1 };
}

/** Forget the length bounds when another connection committed since they were taken (call inside a write). */
export function syncSizes(stmt: (sql: string) => Statement, state: SplitState): void {
  const version = readDataVersion(stmt);
  if (version !== state.version) {
    state.atMost.clear();
    state.version = version;
  }
}

/** A row was filed in `list` by this connection. */
export function filed(state: SplitState, list: number): void {
  state.touched.add(list);
  const known = state.atMost.get(list);
  if (known !== undefined) state.atMost.set(list, known + 1);
}

/**
 * Inside a write transaction: split at most `maxSplits` of the touched lists that hold more than `bound` rows, the
 * longest first. Returns the new quantizer (a fresh object: `assignList` caches per quantizer), or `q` unchanged.
 */
export function splitOversized(
  stmt: (sql: string) => Statement,
  q: IvfQuantizer,
  state: SplitState,
  bound: number,
  maxSplits: number,
): IvfQuantizer {
  if (!Number.isFinite(bound) || state.touched.size === 0) {
    state.touched.clear();
    return q;
  }
  const count = stmt('SELECT count(*) AS n FROM (SELECT 1 FROM vec_ivf WHERE list = ? LIMIT ?)');
  const over: { list: number; n: number }[] = [];
  for (const list of state.touched) {
    if (list < 0 || list >= q.leaves.length) continue;
    const known = state.atMost.get(list);
    if (known !== undefined && known <= bound) continue;
    const n = (count.get(list, bound + 1) as { n: number }).n;
    // Exact up to the bound; past it the list is at least that long, which is no upper bound.
    if (n <= bound) {
      state.atMost.set(list, n);
      continue;
    }
    state.atMost.delete(list);
    const stuckAt = state.stuck.get(list);
    if (stuckAt !== undefined && n < 2 * stuckAt) continue;
    over.push({ list, n });
  }
  state.touched.clear();
  if (over.length === 0) return q;
  over.sort((a, b) => b.n - a.n || a.list - b.list);
  const leaves = [...q.leaves];
  const leafParent = [...q.leafParent];
  const rowsOf = stmt(
    `SELECT v.rid AS rid, c.embedding AS embedding FROM vec_ivf v CROSS JOIN chunks c ON c.rid = v.rid
     WHERE v.list = ? AND length(c.embedding) = ?`,
  );
  const move = stmt('UPDATE vec_ivf SET list = ? WHERE list = ? AND rid = ?');
  const setLeaf = stmt('UPDATE vec_ivf_centroids SET centroid = ? WHERE level = 1 AND idx = ?');
  const addLeaf = stmt('INSERT INTO vec_ivf_centroids (level, idx, parent, centroid) VALUES (1, ?, ?, ?)');
  let split = 0;
  for (const { list, n } of over) {
    if (split >= maxSplits) {
      // Still too long: checked again by the next write.
      state.touched.add(list);
      continue;
    }
    const rows = rowsOf.all(list, q.dimension * 4) as { rid: number; embedding: Buffer }[];
    const halves = splitTwo(
      rows.map((r) => blobToVector(r.embedding)),
      list + 1,
    );
    if (halves === null) {
      state.stuck.set(list, n);
      state.atMost.set(list, rows.length);
      continue;
    }
    state.stuck.delete(list);
    const added = leaves.length;
    leaves[list] = halves.centroids[0];
    leaves.push(halves.centroids[1]);
    leafParent.push(leafParent[list]!);
    setLeaf.run(vectorToBlob(halves.centroids[0]), list);
    addLeaf.run(added, leafParent[list]!, vectorToBlob(halves.centroids[1]));
    let moved = 0;
    for (const [i, row] of rows.entries()) {
      if (halves.side[i] === 1) {
        move.run(added, list, row.rid);
        moved++;
      }
    }
    state.atMost.set(list, rows.length - moved);
    state.atMost.set(added, moved);
    split++;
  }
  if (split === 0) return q;
  return { dimension: q.dimension, coarse: q.coarse, leaves, leafParent };
}
