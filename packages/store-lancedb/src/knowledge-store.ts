import type * as lancedb from '@lancedb/lancedb';
import type { MemoryVersion, Scope } from '@mem/core';
import { MemError } from '@mem/core';
import type {
  EmbeddingInfo,
  KeywordHit,
  KeywordQuery,
  KnowledgeStats,
  KnowledgeStore,
  KnowledgeStoreCapabilities,
  MemoryRecord,
  NeighbourQuery,
  Rating,
  RatingOutcome,
  ScanOptions,
  VectorHit,
  VectorQuery,
} from '@mem/core/adapter';
import { ADAPTER, LanceDatabase, PortRunner } from './database.js';
import { GroupCommit } from './group-commit.js';
import {
  backgroundSettings,
  indexSettings,
  type LanceIndexState,
  type LanceOptimizeReport,
  type LanceStoreOptions,
} from './options.js';
import {
  accessSchema,
  baseOf,
  chunkSchema,
  type DocCounters,
  metaSchema,
  REQUIRED_CHUNK_COLUMNS,
  type Row,
  ratingCountedField,
  ratingSchema,
  ratingToRow,
  recordToRow,
  rowToRecord,
  rowToVersion,
  SCHEMA_VERSION,
  versionSchema,
  versionToRow,
} from './schema.js';
import { chunked, docPredicate, filterPredicate, rows, sqlIn, sqlString } from './sql.js';
import { ManagedTable, optimizeTables } from './upkeep.js';

export interface LanceKnowledgeStore extends KnowledgeStore {
  /** Open the database and create missing tables now (every method does it on first use). */
  ready(): Promise<void>;
  /**
   * Maintenance: compact fragments, fold new rows into the indexes, build an ANN index that reached its
   * threshold, drop unused vector columns and remove table versions older than `cleanupOlderThan` (default 7 days).
   */
  optimize(options?: { cleanupOlderThan?: Date }): Promise<LanceOptimizeReport>;
  /** Which indexes exist and how fresh they are. */
  indexState(): Promise<LanceIndexState>;
}

/** Chunk columns looked up by equality (get, hydration, dedup, keys): each gets a BTREE index. */
const CHUNK_LOOKUP_COLUMNS = ['id', 'doc_id', 'content_hash', 'key'];
const META_SCHEMA = 'schema.version';
const META_MODEL = 'embedding.model';
const META_DIMENSION = 'embedding.dimension';

function notFound(space: string, docId: string, what = 'memory'): MemError {
  return new MemError('NOT_FOUND', `${ADAPTER}: no ${what} ${docId} in space ${space}.`, {
    details: { space, docId },
  });
}

function keyTaken(key: string, scope: Scope, agentId: string, holder: string): MemError {
  return new MemError(
    'KEY_TAKEN',
    `Key ${key} is already taken by another memory (${holder}) of ${agentId} at ${scope} scope. Use memory-edit to change that memory, or choose another key.`,
    { details: { key, scope, agentId, docId: holder } },
  );
}

interface Tables {
  chunks: lancedb.Table;
  versions: lancedb.Table;
  ratings: lancedb.Table;
  meta: lancedb.Table;
  access: lancedb.Table;
  /** The same tables with their index upkeep. */
  upkeep: {
    chunks: ManagedTable;
    versions: ManagedTable;
    ratings: ManagedTable;
    meta: ManagedTable;
    access: ManagedTable;
  };
}

/**
 * A `KnowledgeStore` on LanceDB: a chunks table with a full-text index over name + content (BM25 `_score`) and one
 * vector column per embedding dimension (cosine; exact below the index threshold, IVF_PQ or IVF_HNSW_SQ above it),
 * plus versions, ratings, access and meta tables. Every filter is a LanceDB SQL predicate applied before the limit.
 * Writes run under a write lock (in-process queue + lock file in the folder); see the README for the model.
 */
export function createLanceStore(options: LanceStoreOptions): LanceKnowledgeStore {
  return createKnowledgeStore(new LanceDatabase(options), options);
}

/** The knowledge store on a database shared with other ports (see `createLanceStores`). */
export function createKnowledgeStore(db: LanceDatabase, options: LanceStoreOptions): LanceKnowledgeStore {
  const uri = db.uri;
  const names = {
    chunks: options.tableNames?.chunks ?? 'knowledge_chunks',
    versions: options.tableNames?.versions ?? 'knowledge_versions',
    ratings: options.tableNames?.ratings ?? 'knowledge_ratings',
    meta: options.tableNames?.meta ?? 'knowledge_meta',
    access: options.tableNames?.access ?? 'knowledge_access',
  };
  const settings = indexSettings(options);

  const runner = new PortRunner<Tables>(db, open, {
    auto: settings.auto,
    logger: options.logger,
    delayMs: settings.upkeepDelayMs,
    tables: (t) => [t.upkeep.chunks, t.upkeep.versions, t.upkeep.ratings, t.upkeep.meta, t.upkeep.access],
    background: backgroundSettings(options),
  });
  const read = runner.read.bind(runner);
  const write = runner.write.bind(runner);
  /** Writes that change chunk rows get the full index upkeep. */
  const chunksChanged = (t: Tables) => [t.upkeep.chunks];

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: settings.fts,
    vector: true,
    // Lance's full-text index scores with BM25, k1 = 1.2, b = 0.75.
    keywordLengthNorm: { kind: 'bm25', k1: 1.2, b: 0.75 },
    get exactVector() {
      return runner.current?.upkeep.chunks.exactVector ?? true;
    },
  };

  async function open(): Promise<Tables> {
    const [chunks, versions, ratings, meta, access] = await db.openTables([
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
    ]);
    // A ratings table written before votes said whether they count gets the column (null: the old rows count).
    if (!(await ratings!.schema()).fields.some((f) => f.name === 'counted')) {
      await ratings!.addColumns(ratingCountedField());
    }
    const plain = (name: string, table: lancedb.Table) => new ManagedTable(name, table, settings, false);
    const t: Tables = {
      chunks: chunks!,
      versions: versions!,
      ratings: ratings!,
      meta: meta!,
      access: access!,
      upkeep: {
        chunks: new ManagedTable(names.chunks, chunks!, settings, true, CHUNK_LOOKUP_COLUMNS),
        versions: plain(names.versions, versions!),
        ratings: plain(names.ratings, ratings!),
        meta: plain(names.meta, meta!),
        access: plain(names.access, access!),
      },
    };
    await t.upkeep.chunks.refreshIndexInfo();
    await db.exclusive(async () => {
      await t.upkeep.chunks.ensureFtsIndex();
      await t.upkeep.chunks.ensureScalarIndexes();
      const stored = await metaGet(t, META_SCHEMA);
      if (stored === null) await metaPut(t, { [META_SCHEMA]: String(SCHEMA_VERSION) });
      else if (Number(stored) > SCHEMA_VERSION) {
        throw new MemError(
          'STORE_UNAVAILABLE',
          `${ADAPTER}: ${uri} has knowledge schema version ${stored}, newer than this @mem/store-lancedb understands (${SCHEMA_VERSION}). Upgrade the package.`,
        );
      }
    });
    return t;
  }

  /** The embedding info as last read, with the meta table version it was read at. */
  let embeddingInfoCache: { version: number; info: EmbeddingInfo | null } | null = null;

  // ---------- small helpers over the tables ----------

  async function metaGet(t: Tables, key: string): Promise<string | null> {
    const [row] = await rows(t.meta, `key = ${sqlString(key)}`, 1);
    return row ? String(row.value) : null;
  }

  async function metaPut(t: Tables, entries: Record<string, string>): Promise<void> {
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
      for (const r of await rows(t.ratings, where, undefined, ['doc_id', 'useful', 'counted'])) {
        if (r.counted === false) continue;
        const c = get(String(r.doc_id));
        if (r.useful) c.useful += 1;
        else c.useless += 1;
      }
      for (const r of await rows(t.access, where, undefined, ['doc_id', 'count', 'last_at'])) {
        const c = get(String(r.doc_id));
        c.accesses += Number(r.count);
        c.lastAccessAt = String(r.last_at);
      }
    }
    return counters;
  }

  async function toRecords(t: Tables, found: Row[]): Promise<MemoryRecord[]> {
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

  /** Under the lock: the document's stored version, after checking that it exists and matches. */
  async function checkVersion(
    t: Tables,
    space: string,
    docId: string,
    expected: number,
  ): Promise<{ version: number; scope: Scope; agentId: string; base: ReturnType<typeof baseOf> }> {
    const found = await rows(t.chunks, docPredicate(space, docId), undefined, [
      'version',
      'scope',
      'agent_id',
      'access_base',
      'last_access_base',
      'alpha_base',
      'beta_base',
    ]);
    if (found.length === 0) throw notFound(space, docId);
    const version = Math.max(...found.map((r) => Number(r.version)));
    if (version !== expected) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${version}, expected ${expected}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: version, expectedVersion: expected } },
      );
    }
    const first = found[0]!;
    return { version, scope: String(first.scope) as Scope, agentId: String(first.agent_id), base: baseOf(first) };
  }

  /** Under the lock: the document holding (space, scope, agent, key), other than `self`. */
  async function keyHolder(
    t: Tables,
    space: string,
    scope: Scope,
    agentId: string,
    key: string,
    self: string,
  ): Promise<string | null> {
    const found = await rows(
      t.chunks,
      `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND key = ${sqlString(key)} AND doc_id <> ${sqlString(self)}`,
      1,
      ['doc_id'],
    );
    return found[0] ? String(found[0].doc_id) : null;
  }

  /**
   * Under the lock, for a batch of new documents: each key must be free, in the table and within the batch
   * (KEY_TAKEN), and no document or chunk id may exist already or twice in the batch (CONFLICT). One query per
   * slice of documents (their keys and ids), plus one per slice of the further chunk ids of long documents.
   */
  async function checkNewDocuments(t: Tables, docs: MemoryRecord[][]): Promise<void> {
    const ownerKey = (r: Record<string, unknown>) =>
      JSON.stringify([String(r.space), String(r.scope), String(r.agent_id), String(r.key)]);
    const claimants = new Map<string, MemoryRecord>();
    const ids = new Set<string>();
    const conflict = (space: string, id: string, docId?: string) =>
      new MemError(
        'CONFLICT',
        docId !== undefined
          ? `${ADAPTER}: memory ${docId} already exists in space ${space}.`
          : `${ADAPTER}: a memory chunk with id ${id} already exists in space ${space}.`,
      );
    const firsts: MemoryRecord[] = [];
    for (const chunks of docs) {
      const first = chunks[0];
      if (!first) continue;
      firsts.push(first);
      const k = ownerKey({ space: first.space, scope: first.scope, agent_id: first.agentId, key: first.key });
      const earlier = claimants.get(k);
      if (earlier && earlier.docId !== first.docId) {
        throw keyTaken(first.key, first.scope, first.agentId, earlier.docId);
      }
      claimants.set(k, first);
      for (const c of chunks) {
        const id = `${c.space}\u0000${c.id}`;
        if (ids.has(id)) throw conflict(c.space, c.id);
        ids.add(id);
      }
    }
    const bySpace = new Map<string, MemoryRecord[][]>();
    for (const chunks of docs) {
      const first = chunks[0];
      if (!first) continue;
      const list = bySpace.get(first.space) ?? [];
      list.push(chunks);
      bySpace.set(first.space, list);
    }
    const columns = ['id', 'doc_id', 'space', 'scope', 'agent_id', 'key'];
    for (const [spaceName, list] of bySpace) {
      const space = sqlString(spaceName);
      const found: Row[] = [];
      for (const slice of chunked(list)) {
        const keys = [...new Set(slice.map((c) => c[0]!.key))];
        const docIds = slice.map((c) => c[0]!.docId);
        const chunkIds = slice.map((c) => c[0]!.id);
        found.push(
          ...(await rows(
            t.chunks,
            `space = ${space} AND (${sqlIn('key', keys)} OR ${sqlIn('doc_id', docIds)} OR ${sqlIn('id', chunkIds)})`,
            undefined,
            columns,
          )),
        );
      }
      const more = list.flatMap((chunks) => chunks.slice(1).map((c) => c.id));
      for (const slice of chunked(more)) {
        found.push(...(await rows(t.chunks, `space = ${space} AND ${sqlIn('id', slice)}`, undefined, columns)));
      }
      // KEY_TAKEN first (as for one document), reported for the first document of the batch that hits it.
      let taken: { at: number; first: MemoryRecord; holder: string } | undefined;
      const order = new Map(firsts.map((f, i) => [f, i]));
      for (const r of found) {
        const claimant = claimants.get(ownerKey(r));
        if (!claimant || claimant.docId === String(r.doc_id)) continue;
        const at = order.get(claimant) ?? 0;
        if (!taken || at < taken.at) taken = { at, first: claimant, holder: String(r.doc_id) };
      }
      if (taken) throw keyTaken(taken.first.key, taken.first.scope, taken.first.agentId, taken.holder);
      const docIdSet = new Set(list.map((c) => c[0]!.docId));
      for (const r of found) {
        if (docIdSet.has(String(r.doc_id))) throw conflict(spaceName, String(r.id), String(r.doc_id));
        if (ids.has(`${spaceName}\u0000${String(r.id)}`)) throw conflict(spaceName, String(r.id));
      }
    }
  }

  /** Under the lock: refuse chunk ids that another document of the space already uses. */
  async function checkIds(t: Tables, space: string, docId: string, ids: string[]): Promise<void> {
    for (const batch of chunked(ids)) {
      const clash = await rows(
        t.chunks,
        `space = ${sqlString(space)} AND ${sqlIn('id', batch)} AND doc_id <> ${sqlString(docId)}`,
        1,
        ['id'],
      );
      if (clash.length > 0) {
        throw new MemError(
          'CONFLICT',
          `${ADAPTER}: a memory chunk with id ${String(clash[0]!.id)} already exists in space ${space}.`,
        );
      }
    }
  }

  /**
   * Under the lock: write the version row of an edit before the chunks change. Rows left by an edit that never
   * committed (a crash between the two writes) have a version number ≥ the document's; they are removed here and
   * never listed.
   */
  async function writeVersionRow(t: Tables, v: MemoryVersion, storedVersion: number): Promise<void> {
    const stale = `${docPredicate(v.space, v.docId)} AND version >= ${Math.floor(storedVersion)}`;
    if ((await t.versions.countRows(stale)) > 0) await t.versions.delete(stale);
    await t.versions.add([versionToRow(v, Date.now())]);
  }

  async function undoVersionRow(t: Tables, v: MemoryVersion, storedVersion: number): Promise<void> {
    await t.versions
      .delete(`${docPredicate(v.space, v.docId)} AND version >= ${Math.floor(storedVersion)}`)
      .catch(() => undefined);
  }

  async function deleteHistory(t: Tables, space: string, docIds: string[]): Promise<void> {
    for (const batch of chunked(docIds)) {
      const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
      await t.versions.delete(where);
      await t.ratings.delete(where);
      await t.access.delete(where);
    }
  }

  /**
   * Under the lock: one grouped commit of the inserts of several callers (each an `insertDocuments` call). Each
   * call is checked as it would be alone — against the table and against the calls before it in the batch — and a
   * call that fails its check gets its own error; every other call's documents go into one append.
   */
  async function commitInserts(t: Tables, calls: readonly MemoryRecord[][][]): Promise<Array<unknown | undefined>> {
    const outcomes: Array<unknown | undefined> = calls.map(() => undefined);
    const refusal = (error: unknown) =>
      error instanceof MemError && (error.code === 'KEY_TAKEN' || error.code === 'CONFLICT');
    try {
      // One query for the whole batch when nothing clashes (the usual case).
      await checkNewDocuments(t, calls.flat());
    } catch (error) {
      if (!refusal(error)) throw error;
      const accepted: MemoryRecord[][] = [];
      for (const [i, docs] of calls.entries()) {
        try {
          await checkNewDocuments(t, [...accepted, ...docs]);
          accepted.push(...docs);
        } catch (own) {
          if (!refusal(own)) throw own;
          outcomes[i] = own;
        }
      }
    }
    const all = calls.filter((_, i) => outcomes[i] === undefined).flat(2);
    if (all.length === 0) return outcomes;
    const columns = await t.upkeep.chunks.ensureVectorColumns(
      all.flatMap((c) => (c.embedding ? [c.embedding.length] : [])),
    );
    // One append = one LanceDB commit: readers see every chunk of every document of the batch, or none.
    await t.chunks.add(
      all.map((c) =>
        recordToRow(c, columns, {
          accessCount: c.accessCount,
          lastAccessedAt: c.lastAccessedAt,
          alpha: c.alpha,
          beta: c.beta,
          version: c.version,
        }),
      ),
    );
    return outcomes;
  }

  /** Inserts arriving while the write lock is busy wait together and commit as one append (group commit). */
  const inserts = new GroupCommit<Tables, MemoryRecord[][]>(
    (run) => write('insertDocuments', run, chunksChanged),
    commitInserts,
  );

  // ---------- the port ----------

  const store: LanceKnowledgeStore = {
    name: ADAPTER,
    capabilities,

    async ready() {
      await read(`opening ${uri}`, async () => undefined);
    },

    insertDocument(chunks) {
      return store.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      const batch = docs.filter((chunks) => chunks.length > 0);
      if (batch.length === 0 || runner.isClosed) return read('insertDocuments', async () => undefined);
      return inserts.submit(batch);
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return write(
        'replaceDocument',
        async (t) => {
          const stored = await checkVersion(t, space, docId, expectedVersion);
          const first = chunks[0];
          if (first) {
            const holder = await keyHolder(t, space, first.scope, first.agentId, first.key, docId);
            if (holder) throw keyTaken(first.key, first.scope, first.agentId, holder);
            await checkIds(
              t,
              space,
              docId,
              chunks.map((c) => c.id),
            );
          }
          const columns = await t.upkeep.chunks.ensureVectorColumns(
            chunks.flatMap((c) => (c.embedding ? [c.embedding.length] : [])),
          );
          // Counters stay with the document: its stored base plus its access and ratings rows (untouched here).
          const data = chunks.map((c) => recordToRow(c, columns, { ...stored.base, version: stored.version + 1 }));
          await writeVersionRow(t, version, stored.version);
          try {
            // One merge-insert = one commit: update chunks that keep their id, insert new ones, delete the rest.
            await t.chunks
              .mergeInsert(['space', 'id'])
              .whenMatchedUpdateAll()
              .whenNotMatchedInsertAll()
              .whenNotMatchedBySourceDelete({ where: docPredicate(space, docId) })
              .execute(data);
          } catch (error) {
            await undoVersionRow(t, version, stored.version);
            throw error;
          }
        },
        (t) => [t.upkeep.chunks, t.upkeep.versions],
      );
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      return write(
        'moveDocument',
        async (t) => {
          const stored = await checkVersion(t, space, docId, expectedVersion);
          const holder = await keyHolder(t, space, stored.scope, stored.agentId, change.newKey, docId);
          if (holder) throw keyTaken(change.newKey, stored.scope, stored.agentId, holder);
          const values: Record<string, string> = {
            key: sqlString(change.newKey),
            updated_at: sqlString(change.updatedAt),
            version: 'version + 1',
          };
          if (change.expiresAt !== undefined)
            values.expires_at = change.expiresAt === null ? 'NULL' : sqlString(change.expiresAt);
          await writeVersionRow(t, version, stored.version);
          try {
            // One update = one commit: every chunk moves together.
            await t.chunks.update({ where: docPredicate(space, docId), valuesSql: values });
          } catch (error) {
            await undoVersionRow(t, version, stored.version);
            throw error;
          }
        },
        (t) => [t.upkeep.chunks, t.upkeep.versions],
      );
    },

    deleteDocument(space, docId) {
      return write(
        'deleteDocument',
        async (t) => {
          const { numDeletedRows } = await t.chunks.delete(docPredicate(space, docId));
          await deleteHistory(t, space, [docId]);
          return numDeletedRows;
        },
        chunksChanged,
      );
    },

    deleteByAgent(space, agentId) {
      return write(
        'deleteByAgent',
        async (t) => {
          // No transactions across tables: under the write lock, count the history first, then delete the chunks
          // (with their embeddings and full-text entries) and after them the versions, ratings and access rows.
          const owned = `space = ${sqlString(space)} AND agent_id = ${sqlString(agentId)}`;
          const found = await rows(t.chunks, owned, undefined, ['doc_id']);
          const docIds = [...new Set(found.map((r) => String(r.doc_id)))];
          if (docIds.length === 0) return { documents: 0, chunks: 0, versions: 0, ratings: 0 };
          let versions = 0;
          let ratings = 0;
          for (const batch of chunked(docIds)) {
            const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
            versions += await t.versions.countRows(where);
            ratings += await t.ratings.countRows(where);
          }
          const { numDeletedRows } = await t.chunks.delete(owned);
          await deleteHistory(t, space, docIds);
          // Forget leaves no trace: rewrite the fragments without the deleted rows and drop the older table
          // versions that still hold them (issue 9 §5).
          await optimizeTables(t.upkeep.chunks, [t.upkeep.versions, t.upkeep.ratings, t.upkeep.meta, t.upkeep.access], {
            cleanupOlderThan: new Date(),
          });
          return { documents: docIds.length, chunks: numDeletedRows, versions, ratings };
        },
        chunksChanged,
      );
    },

    getChunk(space, id) {
      return read('getChunk', async (t) => {
        const found = await rows(t.chunks, `space = ${sqlString(space)} AND id = ${sqlString(id)}`, 1);
        const [rec] = await toRecords(t, found);
        return rec ?? null;
      });
    },

    getDocument(space, docId) {
      return read('getDocument', async (t) => {
        const found = await rows(t.chunks, docPredicate(space, docId));
        const recs = await toRecords(t, found);
        return recs.sort((a, b) => a.chunkIndex - b.chunkIndex);
      });
    },

    getChunks(space, ids) {
      return read('getChunks', async (t) => {
        const unique = [...new Set(ids)];
        const found: Row[] = [];
        for (const batch of chunked(unique))
          found.push(...(await rows(t.chunks, `space = ${sqlString(space)} AND ${sqlIn('id', batch)}`)));
        const byId = new Map((await toRecords(t, found)).map((r) => [r.id, r]));
        return unique.flatMap((id) => {
          const rec = byId.get(id);
          return rec ? [rec] : [];
        });
      });
    },

    findDocIdByKey(space, scope, agentId, key) {
      return read('findDocIdByKey', async (t) => {
        const found = await rows(
          t.chunks,
          `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND key = ${sqlString(key)}`,
          1,
          ['doc_id'],
        );
        return found[0] ? String(found[0].doc_id) : null;
      });
    },

    findDocIdByHash(space, scope, agentId, contentHash) {
      return read('findDocIdByHash', async (t) => {
        // Asked before every store. Usually no row or one matches: the oldest chunk (created_at, then id) is picked
        // here rather than by a sorted query, which cost about a third more on a table of many fragments.
        const found = await rows(
          t.chunks,
          `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND content_hash = ${sqlString(contentHash)}`,
          undefined,
          ['doc_id', 'created_at', 'id'],
        );
        let best: Row | null = null;
        for (const r of found) {
          const c = String(r.created_at);
          const b = best ? String(best.created_at) : null;
          if (!best || c < b! || (c === b && String(r.id) < String(best.id))) best = r;
        }
        return best ? String(best.doc_id) : null;
      });
    },

    findDocIdsByHashes(space, lookups) {
      return read('findDocIdsByHashes', async (t) => {
        // One query per owner and slice of hashes; per lookup the oldest chunk wins, as in findDocIdByHash.
        const groups = new Map<string, { scope: string; agentId: string; hashes: Set<string> }>();
        for (const l of lookups) {
          const g = JSON.stringify([l.scope, l.agentId]);
          let group = groups.get(g);
          if (!group) groups.set(g, (group = { scope: l.scope, agentId: l.agentId, hashes: new Set() }));
          group.hashes.add(l.contentHash);
        }
        const best = new Map<string, { docId: string; createdAt: string; id: string }>();
        for (const [g, group] of groups) {
          for (const slice of chunked([...group.hashes])) {
            const where = `space = ${sqlString(space)} AND scope = ${sqlString(group.scope)} AND agent_id = ${sqlString(group.agentId)} AND ${sqlIn('content_hash', slice)}`;
            for (const r of await rows(t.chunks, where, undefined, ['doc_id', 'content_hash', 'created_at', 'id'])) {
              const k = `${g}\u0000${String(r.content_hash)}`;
              const row = { docId: String(r.doc_id), createdAt: String(r.created_at), id: String(r.id) };
              const seen = best.get(k);
              if (!seen || row.createdAt < seen.createdAt || (row.createdAt === seen.createdAt && row.id < seen.id))
                best.set(k, row);
            }
          }
        }
        return lookups.map(
          (l) => best.get(`${JSON.stringify([l.scope, l.agentId])}\u0000${l.contentHash}`)?.docId ?? null,
        );
      });
    },

    keywordSearch(query: KeywordQuery): Promise<KeywordHit[]> {
      return runner.readFresh('keywordSearch', (t) =>
        t.upkeep.chunks.keywordSearch(query.terms, filterPredicate(query.filter), query.limit),
      );
    },

    vectorSearch(query: VectorQuery): Promise<VectorHit[]> {
      return read('vectorSearch', (t) =>
        t.upkeep.chunks.vectorSearch(query.vector, filterPredicate(query.filter), query.limit),
      );
    },

    neighbours(query: NeighbourQuery) {
      return read('neighbours', async (t) => {
        const radius = Math.floor(query.radius);
        if (!(radius > 0)) return [];
        const visible = filterPredicate(query.filter);
        const found = new Map<string, Row>();
        for (const id of new Set(query.ids)) {
          const [at] = await rows(t.chunks, `${visible} AND id = ${sqlString(id)}`, 1, [
            'created_at',
            'scope',
            'agent_id',
          ]);
          if (!at) continue;
          const owner = `${visible} AND scope = ${sqlString(String(at.scope))} AND agent_id = ${sqlString(String(at.agent_id))}`;
          const c = sqlString(String(at.created_at));
          const i = sqlString(id);
          for (const [cmp, ascending] of [
            ['<', false],
            ['>', true],
          ] as const) {
            const side = (await t.chunks
              .query()
              .where(`${owner} AND (created_at ${cmp} ${c} OR (created_at = ${c} AND id ${cmp} ${i}))`)
              .orderBy([
                { columnName: 'created_at', ascending },
                { columnName: 'id', ascending },
              ])
              .limit(radius)
              .toArray()) as Row[];
            for (const row of side) found.set(String(row.id), row);
          }
        }
        return toRecords(t, [...found.values()]);
      });
    },

    recordAccess(space, docId, at) {
      return write(
        'recordAccess',
        async (t) => {
          // Counted in the access table (one small row per document), so that reads never rewrite chunk rows.
          const [current] = await rows(t.access, docPredicate(space, docId), 1, ['count', 'last_at']);
          const last = current && String(current.last_at) > at ? String(current.last_at) : at;
          await t.access
            .mergeInsert(['space', 'doc_id'])
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute([{ space, doc_id: docId, count: (current ? Number(current.count) : 0) + 1, last_at: last }]);
        },
        (t) => [t.upkeep.access],
      );
    },

    addRating(rating: Rating): Promise<RatingOutcome> {
      return write(
        'addRating',
        async (t) => {
          const doc = await rows(t.chunks, docPredicate(rating.space, rating.docId), 1, ['id']);
          if (doc.length === 0) throw notFound(rating.space, rating.docId, 'memory to rate:');
          const taken = await t.ratings.countRows(
            `${docPredicate(rating.space, rating.docId)} AND task_id = ${sqlString(rating.taskId)}`,
          );
          if (taken > 0) {
            throw new MemError(
              'ALREADY_RATED',
              `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
              { details: { docId: rating.docId, taskId: rating.taskId } },
            );
          }
          // One append: the rating and its effect on alpha/beta (computed from the ratings on read) land together.
          await t.ratings.add([ratingToRow(rating)]);
          if (!rating.counted) return { replaced: 0 };
          // Then the rater's earlier counted votes on the memory stop counting (after the append: a crash between
          // the two leaves an extra vote counted, never an acknowledged one lost).
          const { rowsUpdated } = await t.ratings.update({
            where: `${docPredicate(rating.space, rating.docId)} AND agent_id = ${sqlString(rating.agentId)} AND task_id <> ${sqlString(rating.taskId)} AND (counted IS NULL OR counted = true)`,
            valuesSql: { counted: 'false' },
          });
          return { replaced: rowsUpdated };
        },
        (t) => [t.upkeep.ratings],
      );
    },

    listVersions(space, docId) {
      return read('listVersions', async (t) => {
        const current = await rows(t.chunks, docPredicate(space, docId), 1, ['version']);
        if (current.length === 0) return [];
        const docVersion = Number(current[0]!.version);
        const found = await rows(t.versions, `${docPredicate(space, docId)} AND version < ${docVersion}`);
        // One row per version number: the last written wins (an earlier one is a leftover of a failed attempt).
        const byVersion = new Map<number, Row>();
        for (const r of found) {
          const prev = byVersion.get(Number(r.version));
          if (!prev || Number(r.written_ms) >= Number(prev.written_ms)) byVersion.set(Number(r.version), r);
        }
        return [...byVersion.values()].map(rowToVersion).sort((a, b) => a.version - b.version);
      });
    },

    deleteExpired(now, space) {
      return write(
        'deleteExpired',
        async (t) => {
          const where = `expires_at IS NOT NULL AND expires_at <= ${sqlString(now)}${space === undefined ? '' : ` AND space = ${sqlString(space)}`}`;
          const doomed = await rows(t.chunks, where, undefined, ['space', 'doc_id']);
          if (doomed.length === 0) return 0;
          const { numDeletedRows } = await t.chunks.delete(where);
          const bySpace = new Map<string, Set<string>>();
          for (const r of doomed) {
            const set = bySpace.get(String(r.space)) ?? new Set<string>();
            set.add(String(r.doc_id));
            bySpace.set(String(r.space), set);
          }
          for (const [s, ids] of bySpace) await deleteHistory(t, s, [...ids]);
          return numDeletedRows;
        },
        chunksChanged,
      );
    },

    scan(options: ScanOptions) {
      return read('scan', async (t) => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const where: string[] = [];
        if (options.space !== undefined) where.push(`space = ${sqlString(options.space)}`);
        if (options.after !== undefined) {
          const c = sqlString(options.after.createdAt);
          where.push(`(created_at > ${c} OR (created_at = ${c} AND id > ${sqlString(options.after.id)}))`);
        }
        let q = t.chunks.query();
        if (where.length > 0) q = q.where(where.join(' AND '));
        const found = (await q
          .orderBy([
            { columnName: 'created_at', ascending: true },
            { columnName: 'id', ascending: true },
          ])
          .limit(limit)
          .toArray()) as Row[];
        return toRecords(t, found);
      });
    },

    updateEmbeddings(updates, info) {
      return write(
        'updateEmbeddings',
        async (t) => {
          if (updates.length > 0) {
            const columns = await t.upkeep.chunks.ensureVectorColumns(updates.map((u) => u.embedding.length));
            const byId = new Map(updates.map((u) => [u.id, u.embedding]));
            const data: Row[] = [];
            for (const batch of chunked([...byId.keys()])) {
              for (const row of await rows(t.chunks, sqlIn('id', batch))) {
                const rec = rowToRecord(row);
                rec.embedding = byId.get(rec.id) ?? rec.embedding;
                rec.embeddingModel = info.model;
                data.push(recordToRow(rec, columns, { ...baseOf(row), version: rec.version }));
              }
            }
            // One commit for the batch; every other vector column of these rows is cleared.
            if (data.length > 0) await t.chunks.mergeInsert(['space', 'id']).whenMatchedUpdateAll().execute(data);
          }
          await metaPut(t, { [META_MODEL]: info.model, [META_DIMENSION]: String(info.dimension) });
        },
        (t) => [t.upkeep.chunks, t.upkeep.meta],
      );
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return read('stats', async (t) => {
        const chunks = await t.chunks.countRows(`space = ${sqlString(space)}`);
        const docs = await rows(t.chunks, `space = ${sqlString(space)} AND chunk_index = 0`, undefined, [
          'source',
          'scope',
        ]);
        const bySource: Record<string, number> = {};
        const byScope: Record<string, number> = {};
        for (const r of docs) {
          bySource[String(r.source)] = (bySource[String(r.source)] ?? 0) + 1;
          byScope[String(r.scope)] = (byScope[String(r.scope)] ?? 0) + 1;
        }
        return { documents: docs.length, chunks, bySource, byScope };
      });
    },

    getEmbeddingInfo() {
      return read('getEmbeddingInfo', async (t) => {
        // Asked before every store: answered from the last read while the meta table has not changed (its version
        // moves with every commit of any connection; checking it costs far less than a query).
        const version = await t.meta.version();
        if (embeddingInfoCache?.version === version) return embeddingInfoCache.info;
        const found = await rows(t.meta, sqlIn('key', [META_MODEL, META_DIMENSION]));
        const value = (key: string) => found.find((r) => r.key === key)?.value;
        const model = value(META_MODEL) === undefined ? null : String(value(META_MODEL));
        const dimension = Number(value(META_DIMENSION));
        const info =
          model === null || !Number.isFinite(dimension) || dimension <= 0
            ? null
            : ({ model, dimension } satisfies EmbeddingInfo);
        embeddingInfoCache = { version, info };
        return info;
      });
    },

    setEmbeddingInfo(info) {
      return write(
        'setEmbeddingInfo',
        async (t) => {
          await metaPut(t, { [META_MODEL]: info.model, [META_DIMENSION]: String(info.dimension) });
        },
        (t) => [t.upkeep.meta],
      );
    },

    optimize(opts = {}) {
      return write('optimize', (t) =>
        optimizeTables(t.upkeep.chunks, [t.upkeep.versions, t.upkeep.ratings, t.upkeep.meta, t.upkeep.access], opts),
      );
    },

    indexState() {
      return runner.readFresh('indexState', (t) => t.upkeep.chunks.indexState());
    },

    close() {
      return runner.close();
    },
  };
  return store;
}
