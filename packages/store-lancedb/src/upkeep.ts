import * as lancedb from '@lancedb/lancedb';
import { clampSimilarity, type KeywordHit, type VectorHit } from '@mem/core/adapter';
import type { IndexSettings, LanceIndexState } from './options.js';
import { FTS_COLUMN, type Row, vectorColumn, vectorDimension, vectorField } from './schema.js';
import { matchText } from './sql.js';
import type { TailRows } from './tail-rows.js';

/** IVF_PQ sub-vectors: 16 or 8 dimensions each (SIMD friendly), else the largest divisor ≤ dimension / 4. */
function subVectors(dimension: number): number {
  if (dimension % 16 === 0) return dimension / 16;
  if (dimension % 8 === 0) return dimension / 8;
  for (let d = Math.max(1, Math.floor(dimension / 4)); d > 1; d--) if (dimension % d === 0) return d;
  return 1;
}

/** The scalar index of a column: BTREE (many distinct values, ranges) or BITMAP (few distinct values). */
export type ScalarIndexKind = 'btree' | 'bitmap';

const scalarIndexConfig = (kind: ScalarIndexKind | undefined): lancedb.Index =>
  kind === 'bitmap' ? lancedb.Index.bitmap() : lancedb.Index.btree();

const byIdAsc = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Plain tables are checked for fragments every this many writes of this connection (a stats call is not free). */
const PLAIN_CHECK_EVERY = 8;

/**
 * A searchable table of up to `ftsRebuildBelowRows` rows is compacted past this many fragments: rewriting it costs
 * about as little as the full-text rebuild it gets anyway, and each fragment costs every read.
 */
const SMALL_TABLE_MAX_FRAGMENTS = 4;

/**
 * A table and the upkeep of its indexes. A searchable table (`searchable: true`) has an `id` column, the full-text
 * column `fts_text` and vector columns `vec_<dim>`; it carries the keyword and vector arms of its port. A plain
 * table (history, counters) only gets compacted when writes left it in too many fragments.
 *
 * LanceDB indexes only the rows that existed when an index was built or last refreshed; rows written later are
 * still searched, by a flat scan for vectors (exact) and, for full text, by a flat scan scored with the index's
 * statistics — close to the real BM25 when the new rows are a small share of a large index, poor (with 0.31 a row
 * can even be missed) when they are not. Hence `afterWrite`.
 */
export class ManagedTable {
  /** Vector columns with an ANN index (refreshed after upkeep and, at most every 5 s, by searches). */
  private annColumns = new Set<string>();
  private annCheckedAt = 0;
  private ftsIndexed = false;
  /** Columns of `scalarColumns` that have their scalar index. */
  private scalarIndexed = new Set<string>();
  private writes = 0;
  /**
   * The rows its scalar indexes have not seen, when the port keeps them (the chunks table, see `TailRows`): told
   * here of every `optimize` (after which the indexes cover every row) and of every index-only commit.
   */
  tail: TailRows | null = null;
  /**
   * Fragments the last `optimize` left: the ones compaction could not merge (LanceDB merges only fragments that the
   * same deltas of the ANN index cover). `compactIfFragmented` counts fragments past these.
   */
  private fragmentsLeft = 0;
  /** The table's version at the last background compaction, when it was first seen, and when that compaction ran. */
  private compacted: { version: number; seenAt: number; ranAt: number } | null = null;

  /**
   * `scalarIndexes`: columns looked up by equality on every write or read (ids, content hashes) or tested by the
   * filter of every search (space, visibility, expiry, source, time), each with the kind of its scalar index
   * (`btree`, or `bitmap` for columns of few distinct values), so that a lookup or a prefilter reads a few pages
   * instead of scanning the table (measured on 15,000 memories: a content-hash lookup went from ~5–9 ms, growing
   * with the table, to about 1 ms; on 100,000, the search filter from 13 ms to 7). Rows written after the index's
   * last refresh are still found (scanned) until `optimize` folds them in.
   */
  constructor(
    readonly name: string,
    readonly table: lancedb.Table,
    private readonly settings: IndexSettings,
    readonly searchable: boolean,
    scalarIndexes: Readonly<Record<string, ScalarIndexKind>> = {},
  ) {
    this.scalarColumns = Object.keys(scalarIndexes);
    this.scalarKinds = scalarIndexes;
  }

  private readonly scalarColumns: readonly string[];
  private readonly scalarKinds: Readonly<Record<string, ScalarIndexKind>>;

  /** True while no vector column has an ANN index (the vector arm is exact). */
  get exactVector(): boolean {
    return this.annColumns.size === 0;
  }

  async refreshIndexInfo(): Promise<void> {
    const ann = new Set<string>();
    const scalar = new Set<string>();
    let fts = false;
    for (const index of await this.table.listIndices()) {
      const column = index.columns[0] ?? '';
      if (column === FTS_COLUMN && index.indexType === 'FTS') fts = true;
      else if (vectorDimension(column) !== null) ann.add(column);
      else if (this.scalarColumns.includes(column)) scalar.add(column);
    }
    this.annColumns = ann;
    this.scalarIndexed = scalar;
    this.ftsIndexed = fts;
    this.annCheckedAt = Date.now();
  }

  async vectorColumns(): Promise<string[]> {
    return (await this.table.schema()).fields.map((f) => f.name).filter((n) => vectorDimension(n) !== null);
  }

  /**
   * Under the lock: make sure the vector column of every dimension in `dimensions` exists; returns the table's
   * schema with them.
   */
  async ensureVectorSchema(dimensions: Iterable<number>): Promise<Awaited<ReturnType<lancedb.Table['schema']>>> {
    const schema = await this.table.schema();
    const existing = schema.fields.map((f) => f.name);
    const missing = [...new Set(dimensions)].filter((d) => d > 0 && !existing.includes(vectorColumn(d)));
    if (missing.length === 0) return schema;
    await this.rowsKept(() => this.table.addColumns(missing.map(vectorField)));
    return this.table.schema();
  }

  /** Under the lock: make sure the vector column of every dimension in `dimensions` exists; returns them all. */
  async ensureVectorColumns(dimensions: Iterable<number>): Promise<string[]> {
    return (await this.ensureVectorSchema(dimensions)).fields
      .map((f) => f.name)
      .filter((n) => vectorDimension(n) !== null);
  }

  // ---------- the two search arms ----------

  /**
   * The keyword arm: the terms joined into one LanceDB `MatchQuery` (operator OR, no fuzziness, no query syntax)
   * on `fts_text`, filtered by `where` before the limit. Best first (`_score`, BM25), ties by id.
   */
  async keywordSearch(terms: readonly string[], where: string, limit: number): Promise<KeywordHit[]> {
    const text = matchText(terms);
    const n = Math.floor(limit);
    if (!this.settings.fts || text === null || !(n > 0)) return [];
    const found = (await this.table
      .query()
      .fullTextSearch(new lancedb.MatchQuery(text, FTS_COLUMN, { operator: lancedb.Operator.Or, fuzziness: 0 }))
      .where(where)
      .select(['id', '_score'])
      .limit(n)
      .toArray()) as Row[];
    const hits = found.map((r) => ({ id: String(r.id), score: Number(r._score) }));
    hits.sort((a, b) => b.score - a.score || byIdAsc(a, b));
    return hits;
  }

  /**
   * The vector arm: cosine distance on the column of the query's dimension, filtered by `where` before the limit;
   * `similarity = 1 − distance`. Exact below the ANN threshold; with an ANN index, `nprobes` partitions and
   * `refineFactor × limit` candidates re-ranked exactly, and an exact scan when a narrow filter left the probed
   * partitions short of `limit` rows. Best first, ties by id.
   */
  async vectorSearch(vector: Float32Array, where: string, limit: number): Promise<VectorHit[]> {
    const n = Math.floor(limit);
    if (vector.length === 0 || !(n > 0)) return [];
    const column = vectorColumn(vector.length);
    if (!(await this.vectorColumns()).includes(column)) return [];
    if (Date.now() - this.annCheckedAt > 5_000) await this.refreshIndexInfo();
    // Rows without a vector in this column are skipped by the search itself (their distance is null). Saying
    // `IS NOT NULL` here would make LanceDB read the whole vector column to prefilter: ten times slower.
    const search = async (exact: boolean) => {
      let q = this.table
        .vectorSearch(vector)
        .column(column)
        .distanceType('cosine')
        .where(where)
        .select(['id', '_distance'])
        .limit(n);
      if (exact) q = q.bypassVectorIndex();
      else q = q.nprobes(this.settings.nprobes).refineFactor(this.settings.refineFactor);
      return ((await q.toArray()) as Row[]).map((r) => ({
        id: String(r.id),
        similarity: clampSimilarity(1 - Number(r._distance)),
      }));
    };
    const indexed = this.annColumns.has(column);
    let hits = await search(!indexed);
    if (indexed && hits.length < n) hits = await search(true);
    hits.sort((a, b) => b.similarity - a.similarity || byIdAsc(a, b));
    return hits;
  }

  // ---------- indexes ----------

  /** Under the lock: (re)build the ANN index of `column` for its `n` vectors, in one commit. */
  private buildVectorIndex(column: string, n: number): Promise<void> {
    return this.rowsKept(() =>
      this.table.createIndex(column, { config: this.vectorIndexConfig(vectorDimension(column)!, n), replace: true }),
    );
  }

  private vectorIndexConfig(dimension: number, rowsNow: number): lancedb.Index {
    if (this.settings.annType === 'IVF_HNSW_SQ') {
      return lancedb.Index.hnswSq({
        distanceType: 'cosine',
        numPartitions: Math.max(1, Math.round(rowsNow / 100_000)),
      });
    }
    return lancedb.Index.ivfPq({
      distanceType: 'cosine',
      numPartitions: Math.max(1, Math.min(Math.round(Math.sqrt(rowsNow)), Math.floor(rowsNow / 256))),
      numSubVectors: subVectors(dimension),
    });
  }

  /** Build the ANN index of every vector column that reached `minRows`; returns the columns indexed. */
  async buildVectorIndexes(): Promise<string[]> {
    if (!this.searchable || this.settings.annType === 'none') return [];
    if ((await this.table.countRows()) < this.settings.minRows) return [];
    // Another process may have built it meanwhile: never rebuild an index that exists.
    await this.refreshIndexInfo();
    const created: string[] = [];
    for (const column of await this.vectorColumns()) {
      if (this.annColumns.has(column)) continue;
      const n = await this.table.countRows(`${column} IS NOT NULL`);
      if (n < this.settings.minRows) continue;
      await this.buildVectorIndex(column, n);
      created.push(column);
    }
    if (created.length > 0) await this.refreshIndexInfo();
    return created;
  }

  /**
   * Retrain the ANN index of every vector column whose index is split into more than `maxDeltas` deltas (each
   * `optimize` that folds new rows in appends one). Every query searches each delta, and LanceDB compacts only
   * fragments covered by the same deltas, so a split index also keeps the table in small fragments — measured at
   * 100,000 memories ingested in batches of 1,000: 38 deltas and 38 fragments; the vector arm took 50 ms and a
   * lookup of 40 ids 37 ms, against 11 ms and 9 ms once retrained and compacted. `replace: true` swaps the new index
   * in with one commit, so searches use the old one until then. Returns the columns retrained.
   */
  async retrainSplitVectorIndexes(maxDeltas: number): Promise<string[]> {
    if (!this.searchable || this.settings.annType === 'none') return [];
    await this.refreshIndexInfo();
    const retrained: string[] = [];
    for (const column of this.annColumns) {
      const stats = await this.table.indexStats(`${column}_idx`);
      if (!stats || (stats.numIndices ?? 1) <= maxDeltas) continue;
      const n = await this.table.countRows(`${column} IS NOT NULL`);
      await this.buildVectorIndex(column, n);
      retrained.push(column);
    }
    return retrained;
  }

  private async rebuildFts(): Promise<void> {
    await this.rowsKept(() =>
      this.table.createIndex(FTS_COLUMN, {
        // Stop words stay searchable (the core already drops them from queries unless nothing else is left).
        config: lancedb.Index.fts({
          withPosition: false,
          stem: true,
          lowercase: true,
          asciiFolding: true,
          removeStopWords: false,
        }),
        replace: true,
      }),
    );
  }

  /**
   * Under the lock: commits that leave every row and fragment as they were — an index built or replaced, an all-null
   * column added — keep the tail (see `TailRows`).
   */
  private async rowsKept<T>(commit: () => Promise<T>): Promise<T> {
    if (!this.tail) return commit();
    const before = await this.table.version();
    const result = await commit();
    this.tail.carried(before, await this.table.version());
    return result;
  }

  /**
   * Under the lock: LanceDB's `optimize` (compaction, index refresh, versions older than `cleanupOlderThan` removed).
   * Its index refresh leaves every scalar index covering every row: the tail starts empty there.
   */
  async optimize(options: { cleanupOlderThan?: Date } = {}): Promise<lancedb.OptimizeStats> {
    const stats = await this.table.optimize(
      options.cleanupOlderThan ? { cleanupOlderThan: options.cleanupOlderThan } : {},
    );
    if (this.tail && this.scalarReady) this.tail.covered(await this.table.version());
    this.fragmentsLeft = (await this.table.stats()).fragmentStats.numFragments;
    return stats;
  }

  /**
   * Under the lock, when the port opens the table: the tail is empty if every scalar index already covers every
   * row (else it stays unknown until the upkeep's next `optimize`).
   */
  async checkTail(): Promise<void> {
    if (!this.tail || !this.scalarReady) return;
    const version = await this.table.version();
    const stats = await Promise.all(this.scalarColumns.map((c) => this.table.indexStats(`${c}_idx`)));
    if (stats.every((s) => s !== undefined && s.numUnindexedRows === 0)) {
      this.tail.covered(
        version,
        stats.every((s) => s!.numIndexedRows === 0),
      );
    }
  }

  /**
   * Under the lock: create the full-text index if the table has none; true when this call created it. Done when
   * the port opens the table, even an empty one: LanceDB 0.31 searches rows the index has not seen with the
   * index's tokenizer (lower case, ASCII folding, stemming), but a table without an index with a plain one —
   * case-sensitive and unstemmed, so `rollback` would miss `Rollback`.
   */
  async ensureFtsIndex(): Promise<boolean> {
    if (!this.searchable || !this.settings.fts) return false;
    // Another connection may have created it meanwhile.
    if (!this.ftsIndexed) await this.refreshIndexInfo();
    if (this.ftsIndexed) return false;
    await this.rebuildFts();
    await this.refreshIndexInfo();
    return true;
  }

  /** False while the table should have a full-text index and has none (see `ensureFtsIndex`). */
  get ftsReady(): boolean {
    return !this.searchable || !this.settings.fts || this.ftsIndexed;
  }

  /** False while a column of `scalarColumns` has no scalar index (see `ensureScalarIndexes`). */
  get scalarReady(): boolean {
    return this.scalarColumns.every((c) => this.scalarIndexed.has(c));
  }

  /** Under the lock: create the scalar index of each of `scalarColumns` that has none; returns the columns indexed. */
  async ensureScalarIndexes(): Promise<string[]> {
    if (this.scalarReady) return [];
    await this.refreshIndexInfo();
    const created: string[] = [];
    for (const column of this.scalarColumns) {
      if (this.scalarIndexed.has(column)) continue;
      const config = scalarIndexConfig(this.scalarKinds[column]);
      await this.rowsKept(() => this.table.createIndex(column, { config, replace: true }));
      created.push(column);
    }
    if (created.length > 0) await this.refreshIndexInfo();
    return created;
  }

  /**
   * Under the lock: build the scalar index of each of `columns` again from the rows the table has now. An index keeps
   * the values of rows deleted since it was built, even through compaction and cleanup (the BTREE index of the graph's
   * keys kept a forgotten entity's name in its files: the forget suite's raw scan found it), so forget rebuilds the
   * indexes of columns that hold user text before it removes the old versions.
   */
  async rebuildScalarIndexes(columns: readonly string[]): Promise<void> {
    for (const column of columns) {
      if (!this.scalarColumns.includes(column)) continue;
      const config = scalarIndexConfig(this.scalarKinds[column]);
      await this.rowsKept(() => this.table.createIndex(column, { config, replace: true }));
    }
    await this.refreshIndexInfo();
  }

  /**
   * Compact (`optimize`) once the table has more than `limit` fragments beyond those the last `optimize` could not
   * merge; true when it did. Counting every fragment instead made a table whose ANN index is split into deltas
   * (fragments of different deltas never merge) run `optimize` after every write once it passed `limit` fragments,
   * each adding one more delta — 902 deltas and 902 fragments after loading 1,000,000 memories.
   */
  private async compactIfFragmented(limit = this.settings.maxFragments): Promise<boolean> {
    if ((await this.table.stats()).fragmentStats.numFragments <= limit + this.fragmentsLeft) return false;
    await this.optimizeTable();
    return true;
  }

  /**
   * `optimize` of the upkeep: compaction and index refresh, and, with the background compaction on, removal of
   * the versions older than its `keepVersionsMs` — every `optimize` reads all the versions a table keeps (measured:
   * 31 ms with 6 versions, 138 ms with 508), so under steady writes they must not pile up between two cleanups.
   */
  private async optimizeTable(): Promise<void> {
    const keep = this.settings.keepVersionsMs;
    await this.optimize(keep === null ? {} : { cleanupOlderThan: new Date(Date.now() - keep) });
  }

  /**
   * Under the lock, after writes that changed rows (once for all the writes of a burst, see `PortRunner.write`).
   * A plain table is compacted once it has more than `maxFragments` fragments (checked every few upkeeps). A
   * searchable table: the full-text index is created if it is missing; up to `ftsRebuildBelowRows` rows the table
   * is compacted once it has more than `SMALL_TABLE_MAX_FRAGMENTS` fragments and its full-text index rebuilt
   * (cheap there, always exact); above, new rows are folded in with `optimize` once they reach
   * `maxUnindexedFraction` of the indexed rows, or once appends left more than `maxFragments` fragments (every
   * commit adds one, and every read pays for each: a lookup went from 2 ms on one fragment to 13 ms on 18).
   * Finally the ANN index is built once a vector column reaches `minRows`.
   */
  async afterWrite(): Promise<void> {
    if (!this.searchable) {
      this.writes += 1;
      if (this.writes % PLAIN_CHECK_EVERY === 0) await this.compactIfFragmented();
      return;
    }
    const created = await this.ensureFtsIndex();
    const fts =
      !created && this.settings.fts && this.ftsIndexed ? await this.table.indexStats(`${FTS_COLUMN}_idx`) : undefined;
    const rowsNow = fts ? fts.numIndexedRows + fts.numUnindexedRows : await this.table.countRows();
    const small = rowsNow <= this.settings.ftsRebuildBelowRows;
    const optimized = await this.compactIfFragmented(
      small ? Math.min(SMALL_TABLE_MAX_FRAGMENTS, this.settings.maxFragments) : this.settings.maxFragments,
    );
    if (fts && fts.numUnindexedRows > 0) {
      if (small) await this.rebuildFts();
      else if (!optimized && fts.numUnindexedRows >= this.settings.maxUnindexedFraction * fts.numIndexedRows) {
        await this.optimizeTable();
      }
    }
    // A fold-in above may have split the ANN index past the cap: retrain it, then compact what it now covers whole.
    const cap = this.settings.maxVectorIndexDeltas;
    if (cap > 0 && (await this.retrainSplitVectorIndexes(cap)).length > 0) await this.optimizeTable();
    await this.buildVectorIndexes();
  }

  /**
   * Background compaction (under the lock): merge fragments, fold new rows into the indexes and remove table
   * versions older than `olderThan` (every commit leaves one; LanceDB keeps them until a cleanup).
   */
  async compactVersions(olderThan: Date): Promise<void> {
    // A table no commit changed since a compaction that could already remove every older version has nothing
    // left to merge, fold in or remove: skipped (most tables of a port are idle while its chunks take writes).
    const now = Date.now();
    const version = await this.table.version();
    const seenAt = this.compacted?.version === version ? this.compacted.seenAt : now;
    if (this.compacted?.version === version && this.compacted.ranAt - seenAt >= now - olderThan.getTime()) return;
    await this.optimize({ cleanupOlderThan: olderThan });
    // Every version older than the current one existed by `seenAt` (or by now, if this optimize committed).
    const after = await this.table.version();
    this.compacted = { version: after, seenAt: after === version ? seenAt : now, ranAt: now };
    if (!this.searchable) return;
    // Its fold-in may have split the ANN index past the cap, as the upkeep's may (see `afterWrite`).
    const cap = this.settings.maxVectorIndexDeltas;
    if (cap > 0 && (await this.retrainSplitVectorIndexes(cap)).length > 0) {
      await this.optimize({ cleanupOlderThan: olderThan });
    }
    await this.refreshIndexInfo();
  }

  /** Drop vector columns no row uses any more (after a re-embedding into another dimension). */
  async dropUnusedVectorColumns(): Promise<string[]> {
    const dropped: string[] = [];
    for (const column of await this.vectorColumns()) {
      if ((await this.table.countRows(`${column} IS NOT NULL`)) > 0) continue;
      if (this.annColumns.has(column)) await this.table.dropIndex(`${column}_idx`).catch(() => undefined);
      await this.table.dropColumns([column]);
      dropped.push(column);
    }
    if (dropped.length > 0) await this.refreshIndexInfo();
    return dropped;
  }

  async indexState(): Promise<LanceIndexState> {
    await this.refreshIndexInfo();
    let fts: LanceIndexState['fts'] = null;
    const vector: LanceIndexState['vector'] = {};
    for (const index of await this.table.listIndices()) {
      const s = await this.table.indexStats(index.name);
      if (!s) continue;
      const column = index.columns[0] ?? '';
      if (column === FTS_COLUMN) fts = { indexedRows: s.numIndexedRows, unindexedRows: s.numUnindexedRows };
      else if (vectorDimension(column) !== null)
        vector[column] = {
          type: index.indexType,
          indexedRows: s.numIndexedRows,
          unindexedRows: s.numUnindexedRows,
        };
    }
    return { fts, vector };
  }
}
