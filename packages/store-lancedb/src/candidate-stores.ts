/**
 * The episode and procedure stores (docs/structured.md) on LanceDB. They return candidates: keyword hits from the table's
 * full-text index (BM25 `_score` over exactly `episodeSearchText` / `procedureSearchText` of @mem/core/adapter, terms OR-ed
 * in one match query) and vector hits by cosine over the vectors of the same embedder model. @mem/episodic and
 * @mem/procedural rank them. They share the connection, write lock and index upkeep of the knowledge store.
 */
import { MemError } from '@mem/core';
import type {
  CandidateStoreCapabilities,
  EpisodeStore,
  KeywordHit,
  ProcedureStore,
  StoredEmbedding,
  VectorHit,
} from '@mem/core/adapter';
import {
  EPISODE_COLUMNS,
  EPISODE_SCHEMA,
  episodeSchema,
  episodeToRow,
  PROCEDURE_COLUMNS,
  PROCEDURE_SCHEMA,
  procedureSchema,
  procedureToRow,
  REQUIRED_EPISODE_COLUMNS,
  REQUIRED_PROCEDURE_COLUMNS,
  rowToEpisode,
  rowToProcedure,
} from './candidate-schema.js';
import { ADAPTER, LanceDatabase, PortRunner, type TableSpec } from './database.js';
import { eraseRows } from './erase-rows.js';
import { optimizeTables } from './optimize-tables.js';
import {
  backgroundSettings,
  type IndexSettings,
  indexSettings,
  type LanceIndexState,
  type LanceOptimizeReport,
  type LanceStoreOptions,
} from './options.js';
import type { Row } from './schema.js';
import { chunked, rows, sqlIn, sqlString } from './sql.js';
import { ManagedTable } from './upkeep.js';

/** What the Lance episode and procedure stores add to their port. */
export interface LanceCandidateStoreExtras {
  /** Open the database and create the table now (every method does it on first use). */
  ready(): Promise<void>;
  /** Maintenance of the table: compaction, index refresh, ANN build past `minRows`, old versions removed. */
  optimize(options?: { cleanupOlderThan?: Date }): Promise<LanceOptimizeReport>;
  /** Which indexes exist and how fresh they are. */
  indexState(): Promise<LanceIndexState>;
  /** Wait for calls in flight and give the connection back (closed with the last port using it). */
  close(): Promise<void>;
}

export interface LanceEpisodeStore extends EpisodeStore, LanceCandidateStoreExtras {}
export interface LanceProcedureStore extends ProcedureStore, LanceCandidateStoreExtras {}

/** `limit` of a listing: null when nothing is asked for, undefined for no limit (Infinity). */
function listLimit(limit: number): number | null | undefined {
  if (limit === Number.POSITIVE_INFINITY) return undefined;
  const n = Math.floor(limit);
  return n > 0 ? n : null;
}

/**
 * One searchable table of records keyed by (space, id) — what both ports share. Every query names the space;
 * user text reaches predicates only as quoted literals (sql.ts).
 */
class CandidateTable {
  constructor(
    readonly what: 'episode' | 'procedure',
    readonly managed: ManagedTable,
    private readonly columns: readonly string[],
  ) {}

  get table() {
    return this.managed.table;
  }

  whereId(space: string, id: string): string {
    return `space = ${sqlString(space)} AND id = ${sqlString(id)}`;
  }

  /** Under the lock: refuse an id the space already holds (CONFLICT), then append the row in one commit. */
  async insert(
    space: string,
    id: string,
    embedding: StoredEmbedding | null,
    toRow: (vectorColumns: readonly string[]) => Row,
  ): Promise<void> {
    if ((await this.table.countRows(this.whereId(space, id))) > 0) {
      throw new MemError(
        'CONFLICT',
        `${ADAPTER}: ${this.what} id "${id}" already exists in this space. Use a new id.`,
        { details: { id } },
      );
    }
    const vectorColumns = await this.managed.ensureVectorColumns(
      embedding && embedding.vector.length > 0 ? [embedding.vector.length] : [],
    );
    await this.table.add([toRow(vectorColumns)]);
  }

  async get(space: string, id: string): Promise<Row | null> {
    const [row] = await rows(this.table, this.whereId(space, id), 1, [...this.columns]);
    return row ?? null;
  }

  /** Rows in the order of `ids` (repeats kept, unknown ids skipped). */
  async getMany(space: string, ids: readonly string[]): Promise<Row[]> {
    const byId = new Map<string, Row>();
    for (const batch of chunked([...new Set(ids)])) {
      const found = await rows(this.table, `space = ${sqlString(space)} AND ${sqlIn('id', batch)}`, undefined, [
        ...this.columns,
      ]);
      for (const row of found) byId.set(String(row.id), row);
    }
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [row] : [];
    });
  }

  /** Newest first by `timeColumn`, ties by id descending; `where` narrows the space further. */
  async newest(space: string, timeColumn: string, limit: number, where?: string): Promise<Row[]> {
    const n = listLimit(limit);
    if (n === null) return [];
    let q = this.table
      .query()
      .where(`space = ${sqlString(space)}${where ? ` AND ${where}` : ''}`)
      .select([...this.columns])
      .orderBy([
        { columnName: timeColumn, ascending: false },
        { columnName: 'id', ascending: false },
      ]);
    if (n !== undefined) q = q.limit(n);
    return (await q.toArray()) as Row[];
  }

  count(space: string): Promise<number> {
    return this.table.countRows(`space = ${sqlString(space)}`);
  }

  /** A search limit: Infinity means every row of the space. */
  private async searchLimit(space: string, limit: number): Promise<number> {
    return limit === Number.POSITIVE_INFINITY ? this.count(space) : limit;
  }

  async keyword(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]> {
    const hits = await this.managed.keywordSearch(
      terms,
      `space = ${sqlString(space)}`,
      await this.searchLimit(space, limit),
    );
    return hits.filter((h) => h.score > 0);
  }

  async vector(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]> {
    // Only vectors of the same embedder model (and, by their column, of the same dimension) are compared.
    return this.managed.vectorSearch(
      vector,
      `space = ${sqlString(space)} AND embedding_model = ${sqlString(model)}`,
      await this.searchLimit(space, limit),
    );
  }

  /** Delete a record so that no copy stays in the files once the caller compacts (`eraseRows`). */
  async delete(space: string, id: string): Promise<boolean> {
    return (await eraseRows(this.table, this.whereId(space, id))) > 0;
  }
}

const CAPABILITIES = (settings: IndexSettings): CandidateStoreCapabilities => ({
  keyword: settings.fts,
  vector: true,
});

function candidateRunner(
  db: LanceDatabase,
  spec: TableSpec,
  what: 'episode' | 'procedure',
  columns: readonly string[],
  settings: IndexSettings,
  options: LanceStoreOptions,
): PortRunner<CandidateTable> {
  return new PortRunner<CandidateTable>(
    db,
    async () => {
      const [table] = await db.openTables([spec]);
      const managed = new ManagedTable(spec.name, table!, settings, true);
      await managed.refreshIndexInfo();
      if (!managed.ftsReady) await db.exclusive(() => managed.ensureFtsIndex());
      return new CandidateTable(what, managed, columns);
    },
    {
      auto: settings.auto,
      logger: options.logger,
      delayMs: settings.upkeepDelayMs,
      tables: (t) => [t.managed],
      background: backgroundSettings(options),
    },
  );
}

/** The methods both ports have in common, over their runner. */
function commonMethods<R>(runner: PortRunner<CandidateTable>, toRecord: (row: Row) => R, plural: string) {
  /** Writes that changed searchable rows get the index upkeep of the table. */
  const changed = (t: CandidateTable) => [t.managed];
  return {
    name: ADAPTER,
    changed,
    get(space: string, id: string): Promise<R | null> {
      return runner.read(`reading ${plural}`, async (t) => {
        const row = await t.get(space, id);
        return row === null ? null : toRecord(row);
      });
    },
    getMany(space: string, ids: readonly string[]): Promise<R[]> {
      return runner.read(`reading ${plural}`, async (t) => (await t.getMany(space, ids)).map(toRecord));
    },
    count(space: string): Promise<number> {
      return runner.read(`counting ${plural}`, (t) => t.count(space));
    },
    keywordSearch(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]> {
      return runner.readFresh(`searching ${plural}`, (t) => t.keyword(space, terms, limit));
    },
    vectorSearch(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]> {
      return runner.read(`searching ${plural} by vector`, (t) => t.vector(space, vector, model, limit));
    },
    delete(space: string, id: string): Promise<boolean> {
      return runner.write(
        `deleting ${plural}`,
        async (t) => {
          const deleted = await t.delete(space, id);
          // A deleted record leaves no trace (forget, issue 9 §5): compact it away and drop the older versions.
          if (deleted) await optimizeTables(t.managed, [], { cleanupOlderThan: new Date() });
          return deleted;
        },
        changed,
      );
    },
    async ready(): Promise<void> {
      await runner.read(`opening ${runner.db.uri}`, async () => undefined);
    },
    optimize(options: { cleanupOlderThan?: Date } = {}): Promise<LanceOptimizeReport> {
      return runner.write(`optimizing ${plural}`, (t) => optimizeTables(t.managed, [], options));
    },
    indexState(): Promise<LanceIndexState> {
      return runner.readFresh(`reading the ${plural} indexes`, (t) => t.managed.indexState());
    },
    close(): Promise<void> {
      return runner.close();
    },
  };
}

/** The episode store on a database shared with other ports (see `createLanceStores`). */
export function createEpisodeStore(db: LanceDatabase, options: LanceStoreOptions): LanceEpisodeStore {
  const settings = indexSettings(options);
  const name = options.tableNames?.episodes ?? 'episodes';
  const runner = candidateRunner(
    db,
    {
      name,
      schema: episodeSchema(),
      kind: 'episode',
      option: 'tableNames.episodes',
      required: REQUIRED_EPISODE_COLUMNS,
      version: EPISODE_SCHEMA,
    },
    'episode',
    EPISODE_COLUMNS,
    settings,
    options,
  );
  const { changed, ...common } = commonMethods(runner, rowToEpisode, 'episodes');
  return {
    ...common,
    capabilities: CAPABILITIES(settings),
    insert(space, episode, embedding) {
      return runner.write(
        'storing an episode',
        (t) => t.insert(space, episode.id, embedding, (columns) => episodeToRow(space, episode, embedding, columns)),
        changed,
      );
    },
    recent(space, limit) {
      return runner.read('listing episodes', async (t) =>
        (await t.newest(space, 'timestamp', limit)).map(rowToEpisode),
      );
    },
    byTag(space, tag, limit) {
      return runner.read('listing episodes by tag', async (t) =>
        // array_has: element equality — exact and case-sensitive; no LIKE, so % and _ are plain characters.
        (await t.newest(space, 'timestamp', limit, `array_has(tags, ${sqlString(tag)})`)).map(rowToEpisode),
      );
    },
  };
}

/** The procedure store on a database shared with other ports (see `createLanceStores`). */
export function createProcedureStore(db: LanceDatabase, options: LanceStoreOptions): LanceProcedureStore {
  const settings = indexSettings(options);
  const name = options.tableNames?.procedures ?? 'procedures';
  const runner = candidateRunner(
    db,
    {
      name,
      schema: procedureSchema(),
      kind: 'procedure',
      option: 'tableNames.procedures',
      required: REQUIRED_PROCEDURE_COLUMNS,
      version: PROCEDURE_SCHEMA,
    },
    'procedure',
    PROCEDURE_COLUMNS,
    settings,
    options,
  );
  const { changed, ...common } = commonMethods(runner, rowToProcedure, 'procedures');
  return {
    ...common,
    capabilities: CAPABILITIES(settings),
    insert(space, procedure, embedding) {
      return runner.write(
        'storing a procedure',
        (t) =>
          t.insert(space, procedure.id, embedding, (columns) => procedureToRow(space, procedure, embedding, columns)),
        changed,
      );
    },
    list(space, limit) {
      return runner.read('listing procedures', async (t) =>
        (await t.newest(space, 'created_at', limit)).map(rowToProcedure),
      );
    },
    incrementOutcome(space, id, success, at) {
      return runner.write(
        'recording a procedure outcome',
        async (t) => {
          // One update with an SQL expression (`count + 1`): a single commit that never writes a value read
          // earlier. Under the write lock it is serialised with every other writer; without the lock (object
          // storage) LanceDB detects the conflicting commit and re-runs the update on the newer version.
          const column = success ? 'success_count' : 'failure_count';
          const where = t.whereId(space, id);
          const { rowsUpdated } = await t.table.update({
            where,
            valuesSql: { [column]: `${column} + 1`, updated_at: sqlString(at) },
          });
          const row = rowsUpdated > 0 ? await t.get(space, id) : null;
          if (row === null) {
            throw new MemError(
              'NOT_FOUND',
              `${ADAPTER}: no procedure with id "${id}" in this space. List procedures to find its id.`,
              { details: { id } },
            );
          }
          return rowToProcedure(row);
        },
        // The update rewrote the row: it is new to the full-text index until the upkeep folds it in.
        changed,
      );
    },
  };
}

/** An `EpisodeStore` on LanceDB with its own connection (see `createLanceStores` to share one). */
export function createLanceEpisodeStore(options: LanceStoreOptions): LanceEpisodeStore {
  return createEpisodeStore(new LanceDatabase(options), options);
}

/** A `ProcedureStore` on LanceDB with its own connection (see `createLanceStores` to share one). */
export function createLanceProcedureStore(options: LanceStoreOptions): LanceProcedureStore {
  return createProcedureStore(new LanceDatabase(options), options);
}
