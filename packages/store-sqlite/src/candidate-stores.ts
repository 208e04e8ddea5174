/**
 * The episode and procedure stores (docs/structured.md) on SQLite. They return candidates: keyword hits from FTS5 (BM25 over
 * exactly `episodeSearchText` / `procedureSearchText` of @mem/core/adapter, terms OR-ed, each quoted) and vector hits by
 * exact cosine over the vectors of the same embedder model (sqlite-vec when loaded, else JavaScript).
 * @mem/episodic and @mem/procedural rank them. The record statements are the shared ones of @mem/core/adapter.
 */
import {
  clampSimilarity,
  cosine,
  type EpisodeStore,
  type KeywordHit,
  type ProcedureStore,
  type SqlCandidateTable,
  type SqlEpisodeEngine,
  type SqlProgram,
  type SqlRow,
  sqlAll,
  sqlEpisodeStore,
  sqlGet,
  sqlProcedureStore,
  sqlRun,
  type VectorHit,
} from '@mem/core/adapter';
import {
  acquireConnection,
  type SqliteHandle,
  type SqliteLease,
  type SqliteOpenOptions,
  sqlLimit,
} from './connection.js';
import { blobToVector, vectorToBlob } from './knowledge/rows.js';
import { buildMatchExpression } from './knowledge/searcher.js';
import { STRUCTURED_SCHEMA_VERSION } from './migrations.js';
import { sqliteDialect, sqliteRunner } from './sql-layer.js';

/** The keyword arm shared by both tables: FTS5 MATCH of the OR-ed quoted terms, within one space. */
function* keywordHits(
  table: SqlCandidateTable,
  space: string,
  terms: readonly string[],
  limit: number,
): SqlProgram<KeywordHit[]> {
  const match = buildMatchExpression(terms);
  const n = sqlLimit(limit);
  if (match === null || n === null) return [];
  const fts = `${table}_fts`;
  // CROSS JOIN keeps the full-text index as the outer loop; bm25() is lower-is-better, the port wants higher.
  const rows = yield* sqlAll<{ id: string; bm: number }>(
    `SELECT t.id AS id, bm25(${fts}) AS bm FROM ${fts} CROSS JOIN ${table} t ON t.rid = ${fts}.rowid
       WHERE ${fts} MATCH ? AND t.space = ? ORDER BY bm, t.id LIMIT ?`,
    [match, space, n],
  );
  return rows.map((row) => ({ id: row.id, score: -row.bm })).filter((hit) => hit.score > 0);
}

/** The vector arm shared by both tables: exact cosine against vectors of `model` with the query's dimension. */
function vectorArm(nativeVector: boolean) {
  return function* vectorHits(
    table: SqlCandidateTable,
    space: string,
    vector: Float32Array,
    model: string,
    limit: number,
  ): SqlProgram<VectorHit[]> {
    const n = sqlLimit(limit);
    if (n === null || vector.length === 0) return [];
    const blob = vectorToBlob(vector);
    const where = 'space = ? AND embedding_model = ? AND embedding IS NOT NULL AND length(embedding) = ?';
    if (nativeVector) {
      // A zero vector has no direction: sqlite-vec gives NULL, scored as similarity 0 (distance 1).
      const rows = yield* sqlAll<{ id: string; d: number }>(
        `SELECT id, coalesce(vec_distance_cosine(embedding, ?), 1.0) AS d FROM ${table}
         WHERE ${where} ORDER BY d, id LIMIT ?`,
        [blob, space, model, blob.byteLength, n],
      );
      return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - row.d) }));
    }
    const rows = yield* sqlAll<{ id: string; embedding: Buffer }>(`SELECT id, embedding FROM ${table} WHERE ${where}`, [
      space,
      model,
      blob.byteLength,
    ]);
    const hits = rows.map((row) => ({
      id: row.id,
      similarity: clampSimilarity(cosine(vector, blobToVector(row.embedding))),
    }));
    hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return n < 0 ? hits : hits.slice(0, n);
  };
}

/** SQLite's parts of the shared candidate stores: BLOB vectors, FTS5 and sqlite-vec arms, the episode tag table. */
function engineOf(c: SqliteLease): SqlEpisodeEngine {
  return {
    embedding: (e) => (e === null ? [null, null] : [vectorToBlob(e.vector), e.model]),
    vectorParam: () => '?',
    keyword: keywordHits,
    vector: vectorArm(c.nativeVector),
    timeColumn: 'timestamp',
    *byTag(columns, space, tag, limit): SqlProgram<SqlRow[]> {
      // Plain equality on the tag table: no LIKE, no case folding.
      return yield* sqlAll<SqlRow>(
        `SELECT ${columns} FROM episode_tags t JOIN episodes e ON e.rid = t.episode_rid
         WHERE t.tag = ? AND e.space = ? ORDER BY e.timestamp DESC, e.id DESC LIMIT ?`,
        [tag, space, limit],
      );
    },
    tagTable: {
      *insert(space, id, tags) {
        const row = yield* sqlGet<{ rid: number }>('SELECT rid FROM episodes WHERE space = ? AND id = ?', [space, id]);
        for (const t of new Set(tags)) {
          yield* sqlRun('INSERT OR IGNORE INTO episode_tags (episode_rid, tag) VALUES (?, ?)', [row?.rid ?? null, t]);
        }
      },
      *delete(space, id) {
        // Tags go explicitly too, so a connection without foreign keys leaves no orphans.
        yield* sqlRun(
          'DELETE FROM episode_tags WHERE episode_rid IN (SELECT rid FROM episodes WHERE space = ? AND id = ?)',
          [space, id],
        );
      },
    },
  };
}

/** The episode port over a lease (shared with the other ports of the bundle). */
export function createEpisodeStore(c: SqliteLease): EpisodeStore {
  return sqlEpisodeStore(sqliteDialect, sqliteRunner(c), engineOf(c));
}

/** The procedure port over a lease (shared with the other ports of the bundle). */
export function createProcedureStore(c: SqliteLease): ProcedureStore {
  return sqlProcedureStore(sqliteDialect, sqliteRunner(c), engineOf(c));
}

// ---------- standalone factories ----------

export interface SqliteEpisodeStore extends EpisodeStore, SqliteHandle {}
export interface SqliteProcedureStore extends ProcedureStore, SqliteHandle {}

/** The episode store alone, on `{ path }` (its own connection) or `{ db }` (a shared one). */
export function createSqliteEpisodeStore(options: SqliteOpenOptions): SqliteEpisodeStore {
  const c = acquireConnection(options, STRUCTURED_SCHEMA_VERSION);
  return { ...createEpisodeStore(c), ...c.handle() };
}

/** The procedure store alone, on `{ path }` (its own connection) or `{ db }` (a shared one). */
export function createSqliteProcedureStore(options: SqliteOpenOptions): SqliteProcedureStore {
  const c = acquireConnection(options, STRUCTURED_SCHEMA_VERSION);
  return { ...createProcedureStore(c), ...c.handle() };
}
