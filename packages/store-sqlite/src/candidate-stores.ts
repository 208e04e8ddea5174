/**
 * The episode and procedure stores (docs/structured.md) on SQLite. They return candidates: keyword hits from FTS5 (BM25 over
 * exactly `episodeSearchText` / `procedureSearchText` of @mem/core/adapter, terms OR-ed, each quoted) and vector hits by
 * exact cosine over the vectors of the same embedder model (sqlite-vec when loaded, else JavaScript).
 * @mem/episodic and @mem/procedural rank them.
 */
import {
  type Episode,
  type EpisodeOutcome,
  type JsonObject,
  MemError,
  type Procedure,
  type ProcedureStep,
} from '@mem/core';
import {
  type CandidateStoreCapabilities,
  clampSimilarity,
  cosine,
  type EpisodeStore,
  episodeSearchText,
  inOrder,
  type KeywordHit,
  type ProcedureStore,
  procedureSearchText,
  type StoredEmbedding,
  type VectorHit,
} from '@mem/core/adapter';
import {
  acquireConnection,
  duplicateId,
  isUniqueViolation,
  type SqliteHandle,
  type SqliteLease,
  type SqliteOpenOptions,
  sqlLimit,
} from './connection.js';
import { ADAPTER } from './database.js';
import { blobToVector, vectorToBlob } from './knowledge/rows.js';
import { buildMatchExpression } from './knowledge/searcher.js';
import { STRUCTURED_SCHEMA_VERSION } from './migrations.js';

const CAPABILITIES: CandidateStoreCapabilities = { keyword: true, vector: true };

const parse = <T>(text: string): T => JSON.parse(text) as T;

/** The keyword arm shared by both tables: FTS5 MATCH of the OR-ed quoted terms, within one space. */
function keywordHits(
  c: SqliteLease,
  table: 'episodes' | 'procedures',
  space: string,
  terms: readonly string[],
  limit: number,
): KeywordHit[] {
  const match = buildMatchExpression(terms);
  const n = sqlLimit(limit);
  if (match === null || n === null) return [];
  const fts = `${table}_fts`;
  // CROSS JOIN keeps the full-text index as the outer loop; bm25() is lower-is-better, the port wants higher.
  const rows = c
    .stmt(
      `SELECT t.id AS id, bm25(${fts}) AS bm FROM ${fts} CROSS JOIN ${table} t ON t.rid = ${fts}.rowid
       WHERE ${fts} MATCH ? AND t.space = ? ORDER BY bm, t.id LIMIT ?`,
    )
    .all(match, space, n) as { id: string; bm: number }[];
  return rows.map((row) => ({ id: row.id, score: -row.bm })).filter((hit) => hit.score > 0);
}

/** The vector arm shared by both tables: exact cosine against vectors of `model` with the query's dimension. */
function vectorHits(
  c: SqliteLease,
  table: 'episodes' | 'procedures',
  space: string,
  vector: Float32Array,
  model: string,
  limit: number,
): VectorHit[] {
  const n = sqlLimit(limit);
  if (n === null || vector.length === 0) return [];
  const blob = vectorToBlob(vector);
  const where = 'space = ? AND embedding_model = ? AND embedding IS NOT NULL AND length(embedding) = ?';
  if (c.nativeVector) {
    // A zero vector has no direction: sqlite-vec gives NULL, scored as similarity 0 (distance 1).
    const rows = c
      .stmt(
        `SELECT id, coalesce(vec_distance_cosine(embedding, ?), 1.0) AS d FROM ${table}
         WHERE ${where} ORDER BY d, id LIMIT ?`,
      )
      .all(blob, space, model, blob.byteLength, n) as { id: string; d: number }[];
    return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - row.d) }));
  }
  const rows = c.stmt(`SELECT id, embedding FROM ${table} WHERE ${where}`).all(space, model, blob.byteLength) as {
    id: string;
    embedding: Buffer;
  }[];
  const hits = rows.map((row) => ({
    id: row.id,
    similarity: clampSimilarity(cosine(vector, blobToVector(row.embedding))),
  }));
  hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return n < 0 ? hits : hits.slice(0, n);
}

function embeddingColumns(embedding: StoredEmbedding | null): [Buffer | null, string | null] {
  return embedding === null ? [null, null] : [vectorToBlob(embedding.vector), embedding.model];
}

// ---------- episodes ----------

interface EpisodeRow {
  id: string;
  summary: string;
  key_decisions: string;
  tools_used: string;
  outcome: string;
  session_id: string | null;
  timestamp: string;
  tags: string;
  metadata: string;
}

const EPISODE_COLUMNS =
  'e.id, e.summary, e.key_decisions, e.tools_used, e.outcome, e.session_id, e.timestamp, e.tags, e.metadata';

function toEpisode(row: EpisodeRow): Episode {
  return {
    id: row.id,
    summary: row.summary,
    keyDecisions: parse<string[]>(row.key_decisions),
    toolsUsed: parse<string[]>(row.tools_used),
    outcome: row.outcome as EpisodeOutcome,
    sessionId: row.session_id,
    timestamp: row.timestamp,
    tags: parse<string[]>(row.tags),
    metadata: parse<JsonObject>(row.metadata),
  };
}

/** The episode port over a lease (shared with the other ports of the bundle). */
export function createEpisodeStore(c: SqliteLease): EpisodeStore {
  return {
    name: ADAPTER,
    capabilities: CAPABILITIES,
    insert(space, e, embedding) {
      return c.write(
        'storing an episode',
        () => {
          const [blob, model] = embeddingColumns(embedding);
          const { lastInsertRowid } = c
            .stmt(
              `INSERT INTO episodes (space, id, summary, key_decisions, tools_used, outcome, session_id, timestamp, tags,
                 metadata, search_text, embedding, embedding_model)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            )
            .run(
              space,
              e.id,
              e.summary,
              JSON.stringify(e.keyDecisions),
              JSON.stringify(e.toolsUsed),
              e.outcome,
              e.sessionId,
              e.timestamp,
              JSON.stringify(e.tags),
              JSON.stringify(e.metadata),
              episodeSearchText(e),
              blob,
              model,
            );
          const tag = c.stmt('INSERT OR IGNORE INTO episode_tags (episode_rid, tag) VALUES (?, ?)');
          for (const t of new Set(e.tags)) tag.run(lastInsertRowid, t);
        },
        (error) => (isUniqueViolation(error, 'episodes.') ? duplicateId('episode', e.id, error) : null),
      );
    },
    get(space, id) {
      return c.run('reading an episode', () => {
        const row = c.stmt(`SELECT ${EPISODE_COLUMNS} FROM episodes e WHERE e.space = ? AND e.id = ?`).get(space, id) as
          | EpisodeRow
          | undefined;
        return row === undefined ? null : toEpisode(row);
      });
    },
    getMany(space, ids) {
      return c.run('reading episodes', () => {
        if (ids.length === 0) return [];
        const rows = c
          .stmt(
            `SELECT ${EPISODE_COLUMNS} FROM episodes e WHERE e.space = ? AND e.id IN (SELECT value FROM json_each(?))`,
          )
          .all(space, JSON.stringify([...new Set(ids)])) as EpisodeRow[];
        return inOrder(rows, ids).map(toEpisode);
      });
    },
    recent(space, limit) {
      return c.run('listing episodes', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        const rows = c
          .stmt(
            `SELECT ${EPISODE_COLUMNS} FROM episodes e WHERE e.space = ? ORDER BY e.timestamp DESC, e.id DESC LIMIT ?`,
          )
          .all(space, n) as EpisodeRow[];
        return rows.map(toEpisode);
      });
    },
    byTag(space, tag, limit) {
      return c.run('listing episodes by tag', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        // Plain equality on the tag table: no LIKE, no case folding.
        const rows = c
          .stmt(
            `SELECT ${EPISODE_COLUMNS} FROM episode_tags t JOIN episodes e ON e.rid = t.episode_rid
             WHERE t.tag = ? AND e.space = ? ORDER BY e.timestamp DESC, e.id DESC LIMIT ?`,
          )
          .all(tag, space, n) as EpisodeRow[];
        return rows.map(toEpisode);
      });
    },
    count(space) {
      return c.run(
        'counting episodes',
        () => (c.stmt('SELECT count(*) AS n FROM episodes WHERE space = ?').get(space) as { n: number }).n,
      );
    },
    keywordSearch(space, terms, limit) {
      return c.run('searching episodes', () => keywordHits(c, 'episodes', space, terms, limit));
    },
    vectorSearch(space, vector, model, limit) {
      return c.run('searching episodes by vector', () => vectorHits(c, 'episodes', space, vector, model, limit));
    },
    delete(space, id) {
      return c.write('deleting an episode', () => {
        // Tags go explicitly too, so a connection without foreign keys leaves no orphans.
        c.stmt(
          'DELETE FROM episode_tags WHERE episode_rid IN (SELECT rid FROM episodes WHERE space = ? AND id = ?)',
        ).run(space, id);
        return c.stmt('DELETE FROM episodes WHERE space = ? AND id = ?').run(space, id).changes > 0;
      });
    },
  };
}

// ---------- procedures ----------

interface ProcedureRow {
  id: string;
  name: string;
  description: string;
  trigger_text: string;
  steps: string;
  success_count: number;
  failure_count: number;
  tags: string;
  metadata: string;
  created_at: string;
  updated_at: string;
}

const PROCEDURE_COLUMNS =
  'id, name, description, trigger_text, steps, success_count, failure_count, tags, metadata, created_at, updated_at';

function toProcedure(row: ProcedureRow): Procedure {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    trigger: row.trigger_text,
    steps: parse<ProcedureStep[]>(row.steps),
    successCount: row.success_count,
    failureCount: row.failure_count,
    tags: parse<string[]>(row.tags),
    metadata: parse<JsonObject>(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The procedure port over a lease (shared with the other ports of the bundle). */
export function createProcedureStore(c: SqliteLease): ProcedureStore {
  return {
    name: ADAPTER,
    capabilities: CAPABILITIES,
    insert(space, p, embedding) {
      return c.run(
        'storing a procedure',
        () => {
          const [blob, model] = embeddingColumns(embedding);
          c.stmt(
            `INSERT INTO procedures (space, id, name, description, trigger_text, steps, success_count, failure_count,
               tags, metadata, created_at, updated_at, search_text, embedding, embedding_model)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            space,
            p.id,
            p.name,
            p.description,
            p.trigger,
            JSON.stringify(p.steps),
            p.successCount,
            p.failureCount,
            JSON.stringify(p.tags),
            JSON.stringify(p.metadata),
            p.createdAt,
            p.updatedAt,
            procedureSearchText(p),
            blob,
            model,
          );
        },
        (error) => (isUniqueViolation(error, 'procedures.') ? duplicateId('procedure', p.id, error) : null),
      );
    },
    get(space, id) {
      return c.run('reading a procedure', () => {
        const row = c.stmt(`SELECT ${PROCEDURE_COLUMNS} FROM procedures WHERE space = ? AND id = ?`).get(space, id) as
          | ProcedureRow
          | undefined;
        return row === undefined ? null : toProcedure(row);
      });
    },
    getMany(space, ids) {
      return c.run('reading procedures', () => {
        if (ids.length === 0) return [];
        const rows = c
          .stmt(
            `SELECT ${PROCEDURE_COLUMNS} FROM procedures WHERE space = ? AND id IN (SELECT value FROM json_each(?))`,
          )
          .all(space, JSON.stringify([...new Set(ids)])) as ProcedureRow[];
        return inOrder(rows, ids).map(toProcedure);
      });
    },
    list(space, limit) {
      return c.run('listing procedures', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        const rows = c
          .stmt(`SELECT ${PROCEDURE_COLUMNS} FROM procedures WHERE space = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
          .all(space, n) as ProcedureRow[];
        return rows.map(toProcedure);
      });
    },
    count(space) {
      return c.run(
        'counting procedures',
        () => (c.stmt('SELECT count(*) AS n FROM procedures WHERE space = ?').get(space) as { n: number }).n,
      );
    },
    keywordSearch(space, terms, limit) {
      return c.run('searching procedures', () => keywordHits(c, 'procedures', space, terms, limit));
    },
    vectorSearch(space, vector, model, limit) {
      return c.run('searching procedures by vector', () => vectorHits(c, 'procedures', space, vector, model, limit));
    },
    incrementOutcome(space, id, success, at) {
      return c.run('recording a procedure outcome', () => {
        // One statement, never read-modify-write: concurrent reports from other connections are all counted.
        const column = success ? 'success_count' : 'failure_count';
        const row = c
          .stmt(
            `UPDATE procedures SET ${column} = ${column} + 1, updated_at = ? WHERE space = ? AND id = ?
             RETURNING ${PROCEDURE_COLUMNS}`,
          )
          .get(at, space, id) as ProcedureRow | undefined;
        if (row === undefined) {
          throw new MemError(
            'NOT_FOUND',
            `${ADAPTER}: no procedure with id "${id}" in this space. List procedures to find its id.`,
            { details: { id } },
          );
        }
        return toProcedure(row);
      });
    },
    delete(space, id) {
      return c.run(
        'deleting a procedure',
        () => c.stmt('DELETE FROM procedures WHERE space = ? AND id = ?').run(space, id).changes > 0,
      );
    },
  };
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
