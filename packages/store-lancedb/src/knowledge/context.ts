import type * as lancedb from '@lancedb/lancedb';
import { MemError } from '@mem/core';
import type { MemoryRecord } from '@mem/core/adapter';
import { ADAPTER, type LanceDatabase, PortRunner } from '../database.js';
import { backgroundSettings, indexSettings, type LanceStoreOptions } from '../options.js';
import {
  accessSchema,
  chunkSchema,
  type DocCounters,
  FTS_COLUMN,
  formationLogSchema,
  metaSchema,
  REQUIRED_CHUNK_COLUMNS,
  type Row,
  ratingCountedField,
  ratingSchema,
  rowToRecord,
  SCHEMA_VERSION,
  validityFields,
  versionSchema,
} from '../schema.js';
import { chunked, rows, sqlIn, sqlString } from '../sql.js';
import { TailRows } from '../tail-rows.js';
import { ManagedTable, type ScalarIndexKind } from '../upkeep.js';

/**
 * Chunk columns with a scalar index: those looked up by equality (get, hydration, dedup, keys) and those the search
 * filter tests on every query (space, visibility, expiry, source; created_at for the neighbouring turns). Without
 * them every search evaluated its filter by reading these columns of the whole table: at 100,000 memories the
 * prefilter of each arm and each scan of the neighbours lookup cost 13–22 ms that way. `valid_to` and `user_id` are
 * tested by every search too (`valid_to IS NULL OR valid_to > now`, the same shape as the expiry, and `user_id IS
 * NULL`); `valid_from` only by `asOf` searches, inside a `coalesce` no index answers.
 */
const CHUNK_SCALAR_INDEXES: Readonly<Record<string, ScalarIndexKind>> = {
  id: 'btree',
  doc_id: 'btree',
  content_hash: 'btree',
  key: 'btree',
  space: 'bitmap',
  scope: 'bitmap',
  source: 'bitmap',
  agent_id: 'btree',
  expires_at: 'btree',
  created_at: 'btree',
  valid_to: 'btree',
  user_id: 'btree',
};
const META_SCHEMA = 'schema.version';
export const META_MODEL = 'embedding.model';
export const META_DIMENSION = 'embedding.dimension';

export function notFound(space: string, docId: string, what = 'memory'): MemError {
  return new MemError('NOT_FOUND', `${ADAPTER}: no ${what} ${docId} in space ${space}.`, {
    details: { space, docId },
  });
}

/** The tables of the knowledge store, opened once per runner. */
export interface Tables {
  chunks: lancedb.Table;
  versions: lancedb.Table;
  ratings: lancedb.Table;
  meta: lancedb.Table;
  access: lancedb.Table;
  /** The decision log of formation (`form`, `formationLog`). */
  formationLog: lancedb.Table;
  /** The same tables with their index upkeep. */
  upkeep: {
    chunks: ManagedTable;
    versions: ManagedTable;
    ratings: ManagedTable;
    meta: ManagedTable;
    access: ManagedTable;
    formationLog: ManagedTable;
  };
}

/** The tables without search (history, counters, meta, decision log), for upkeep and `optimizeTables`. */
export const plainTables = (t: Tables): ManagedTable[] => [
  t.upkeep.versions,
  t.upkeep.ratings,
  t.upkeep.meta,
  t.upkeep.access,
  t.upkeep.formationLog,
];

/**
 * Under the write lock, when the port opens its tables: the columns added since a table was written, all null (a
 * metadata-only commit, no data file rewritten) — the validity columns of formation on the chunks (old memories read
 * back as written on purpose: open validity, no user, no claim) and `counted` on the ratings (null: the old votes
 * count). Each is looked for again under the lock, so two processes opening an old database add it once.
 */
async function migrate(chunks: lancedb.Table, ratings: lancedb.Table): Promise<void> {
  const names = async (table: lancedb.Table) => new Set((await table.schema()).fields.map((f) => f.name));
  const chunkColumns = await names(chunks);
  const missing = validityFields().filter((f) => !chunkColumns.has(f.name));
  if (missing.length > 0) await chunks.addColumns(missing);
  if (!(await names(ratings)).has('counted')) await ratings.addColumns(ratingCountedField());
}

export async function metaGet(t: Tables, key: string): Promise<string | null> {
  const [row] = await rows(t.meta, `key = ${sqlString(key)}`, 1);
  return row ? String(row.value) : null;
}

export async function metaPut(t: Tables, entries: Record<string, string>): Promise<void> {
  const data = Object.entries(entries).map(([key, value]) => ({ key, value }));
  await t.meta.mergeInsert('key').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
}

/** Accesses and ratings of documents since they were written (added to the stored base counters on read). */
async function docCounters(t: Tables, space: string, docIds: Iterable<string>): Promise<Map<string, DocCounters>> {
  const counters = new Map<string, DocCounters>();
  const get = (id: string) => {
    let c = counters.get(id);
    if (!c) {
      c = { accesses: 0, lastAccessAt: null, useful: 0, useless: 0 };
      counters.set(id, c);
    }
    return c;
  };
  for (const batch of chunked([...new Set(docIds)])) {
    const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
    // The two tables are read at once: each read is a round of its own (a version check, then the scan).
    const [ratings, accesses] = await Promise.all([
      rows(t.ratings, where, undefined, ['doc_id', 'useful', 'counted']),
      rows(t.access, where, undefined, ['doc_id', 'count', 'last_at']),
    ]);
    for (const r of ratings) {
      if (r.counted === false) continue;
      const c = get(String(r.doc_id));
      if (r.useful) c.useful += 1;
      else c.useless += 1;
    }
    for (const r of accesses) {
      const c = get(String(r.doc_id));
      c.accesses += Number(r.count);
      c.lastAccessAt = String(r.last_at);
    }
  }
  return counters;
}

/**
 * The chunk columns a record is made of: every column but the full-text one (name + content again, never read
 * back). Asked each time (the schema is cached by LanceDB), since another connection may add a vector column.
 * Rows fetched by id are scattered over the table, and each column of each row is one read: fewer columns, less time.
 */
export async function recordColumns(t: Tables): Promise<string[]> {
  return (await t.chunks.schema()).fields.map((f) => f.name).filter((name) => name !== FTS_COLUMN);
}

/** Records of chunk rows, their counters added (accesses and ratings since they were written). */
export async function toRecords(t: Tables, found: Row[]): Promise<MemoryRecord[]> {
  if (found.length === 0) return [];
  const bySpace = new Map<string, Set<string>>();
  for (const r of found) {
    const set = bySpace.get(String(r.space)) ?? new Set<string>();
    set.add(String(r.doc_id));
    bySpace.set(String(r.space), set);
  }
  const counters = new Map<string, DocCounters>();
  for (const [space, ids] of bySpace) {
    for (const [docId, c] of await docCounters(t, space, ids)) counters.set(`${space}\u0000${docId}`, c);
  }
  return found.map((r) => rowToRecord(r, counters.get(`${String(r.space)}\u0000${String(r.doc_id)}`)));
}

/**
 * What every role of the LanceDB knowledge store shares: the database, the runner that opens the tables once and runs
 * reads and writes (writes under the write lock, with the index upkeep of the tables they change), and the settings.
 */
export interface LanceKnowledgeContext {
  readonly uri: string;
  readonly runner: PortRunner<Tables>;
  readonly settings: ReturnType<typeof indexSettings>;
  read: PortRunner<Tables>['read'];
  write: PortRunner<Tables>['write'];
  /** Writes that change chunk rows get the full index upkeep. */
  chunksChanged(t: Tables): ManagedTable[];
}

/** The shared part of the knowledge store on `db` (tables named by `options.tableNames`). */
export function createLanceContext(db: LanceDatabase, options: LanceStoreOptions): LanceKnowledgeContext {
  const uri = db.uri;
  const names = {
    chunks: options.tableNames?.chunks ?? 'knowledge_chunks',
    versions: options.tableNames?.versions ?? 'knowledge_versions',
    ratings: options.tableNames?.ratings ?? 'knowledge_ratings',
    meta: options.tableNames?.meta ?? 'knowledge_meta',
    access: options.tableNames?.access ?? 'knowledge_access',
    formationLog: options.tableNames?.formationLog ?? 'knowledge_formation_log',
  };
  const settings = indexSettings(options);

  const runner = new PortRunner<Tables>(db, open, {
    auto: settings.auto,
    logger: options.logger,
    delayMs: settings.upkeepDelayMs,
    tables: (t) => [t.upkeep.chunks, ...plainTables(t)],
    background: backgroundSettings(options),
  });
  const read = runner.read.bind(runner);
  const write = runner.write.bind(runner);
  /** Writes that change chunk rows get the full index upkeep. */
  const chunksChanged = (t: Tables) => [t.upkeep.chunks];

  async function open(): Promise<Tables> {
    const [chunks, versions, ratings, meta, access, formationLog] = await db.openTables([
      {
        name: names.chunks,
        schema: chunkSchema(),
        kind: 'knowledge',
        option: 'tableNames.chunks',
        required: REQUIRED_CHUNK_COLUMNS,
      },
      { name: names.versions, schema: versionSchema(), kind: 'knowledge', option: 'tableNames.versions' },
      { name: names.ratings, schema: ratingSchema(), kind: 'knowledge', option: 'tableNames.ratings' },
      { name: names.meta, schema: metaSchema(), kind: 'knowledge', option: 'tableNames.meta' },
      { name: names.access, schema: accessSchema(), kind: 'knowledge', option: 'tableNames.access' },
      {
        name: names.formationLog,
        schema: formationLogSchema(),
        kind: 'knowledge',
        option: 'tableNames.formationLog',
        required: formationLogSchema().fields.map((f) => f.name),
      },
    ]);
    const plain = (name: string, table: lancedb.Table) => new ManagedTable(name, table, settings, false);
    const t: Tables = {
      chunks: chunks!,
      versions: versions!,
      ratings: ratings!,
      meta: meta!,
      access: access!,
      formationLog: formationLog!,
      upkeep: {
        chunks: new ManagedTable(names.chunks, chunks!, settings, true, CHUNK_SCALAR_INDEXES),
        versions: plain(names.versions, versions!),
        ratings: plain(names.ratings, ratings!),
        meta: plain(names.meta, meta!),
        access: plain(names.access, access!),
        formationLog: plain(names.formationLog, formationLog!),
      },
    };
    // The write lookups read the indexed part of the chunks table and this connection's newer rows from memory.
    t.upkeep.chunks.tail = new TailRows();
    await t.upkeep.chunks.refreshIndexInfo();
    await db.exclusive(async () => {
      const stored = await metaGet(t, META_SCHEMA);
      if (stored !== null && Number(stored) > SCHEMA_VERSION) {
        throw new MemError(
          'STORE_UNAVAILABLE',
          `${ADAPTER}: ${uri} has knowledge schema version ${stored}, newer than this @mem/store-lancedb understands (${SCHEMA_VERSION}). Upgrade the package.`,
        );
      }
      // Before the indexes: the scalar indexes of the added columns are created next, and the tail is checked
      // against the version the additions made.
      await migrate(chunks!, ratings!);
      await t.upkeep.chunks.ensureFtsIndex();
      await t.upkeep.chunks.ensureScalarIndexes();
      await t.upkeep.chunks.checkTail();
      // Recorded once the tables have every column of this version (a crash before leaves the old number: the next
      // open migrates again, finding what is already there).
      if (stored !== String(SCHEMA_VERSION)) await metaPut(t, { [META_SCHEMA]: String(SCHEMA_VERSION) });
    });
    return t;
  }

  return { uri, runner, settings, read, write, chunksChanged };
}
