/**
 * The episode and procedure stores (docs/structured.md) on PostgreSQL. They return candidates: keyword hits from the same
 * tsquery as the knowledge store (`tsqueryFromTerms`, english lexemes OR-ed, never parsed as query syntax) over a
 * generated tsvector of exactly `episodeSearchText` / `procedureSearchText` of @mem/core/adapter, ranked by `ts_rank_cd`;
 * vector hits by exact cosine (pgvector `<=>`) over the vectors of the same embedder model. @mem/episodic and
 * @mem/procedural rank them. Every statement is filtered by space.
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
  type EpisodeStore,
  episodeSearchText,
  inOrder,
  type KeywordHit,
  type ProcedureStore,
  procedureSearchText,
  type StoredEmbedding,
  type VectorHit,
} from '@mem/core/adapter';
import { ADAPTER, exec } from './connection.js';
import { episodicMigrations } from './migrations.js';
import { candidateKeywordQuery, candidateVectorQuery, iso, termsText } from './queries.js';
import {
  duplicateId,
  handleOf,
  isUniqueViolation,
  openRuntime,
  type PortRuntime,
  type PostgresHandle,
  type PostgresPortOptions,
  rowLimit,
} from './runtime.js';
import { vectorLiteral } from './vectors.js';

const CAPABILITIES: CandidateStoreCapabilities = { keyword: true, vector: true };

const parse = <T>(text: string): T => JSON.parse(text) as T;

/** The embedding columns: a vector literal and its model, or nulls (an empty vector is stored as none). */
function embeddingParams(embedding: StoredEmbedding | null): [string | null, string | null] {
  if (embedding === null || embedding.vector.length === 0) return [null, null];
  return [vectorLiteral(embedding.vector), embedding.model];
}

/** The keyword and vector arms, shared by both tables. */
function arms(rt: PortRuntime, table: 'episodes' | 'procedures') {
  const qualified = `${rt.s}.${table}`;
  return {
    async keyword(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]> {
      const text = termsText(terms);
      const n = rowLimit(limit);
      if (text === '' || n === 0) return [];
      const q = candidateKeywordQuery(qualified, space, text, n);
      const rows = await exec<{ id: string; score: number }[]>(rt.sql, q.text, q.params);
      return rows.map((row) => ({ id: row.id, score: Number(row.score) })).filter((hit) => hit.score > 0);
    },
    async vector(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]> {
      const n = rowLimit(limit);
      if (n === 0 || vector.length === 0) return [];
      const q = candidateVectorQuery(
        qualified,
        rt.vectorSchema(),
        space,
        vectorLiteral(vector),
        vector.length,
        model,
        n,
      );
      const rows = await exec<{ id: string; distance: number }[]>(rt.sql, q.text, q.params);
      return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - Number(row.distance)) }));
    },
  };
}

// ---------- episodes ----------

interface EpisodeRow {
  id: string;
  summary: string;
  keydecisions: string;
  toolsused: string;
  outcome: string;
  sessionid: string | null;
  happenedat: string;
  tags: string;
  metadata: string;
}

const EPISODE_COLS = `e.id AS id, e.summary AS summary, array_to_json(e.key_decisions)::text AS keydecisions,
  array_to_json(e.tools_used)::text AS toolsused, e.outcome AS outcome, e.session_id AS sessionid,
  ${iso('e.happened_at')} AS happenedat, array_to_json(e.tags)::text AS tags, e.metadata::text AS metadata`;

const toEpisode = (row: EpisodeRow): Episode => ({
  id: row.id,
  summary: row.summary,
  keyDecisions: parse<string[]>(row.keydecisions),
  toolsUsed: parse<string[]>(row.toolsused),
  outcome: row.outcome as EpisodeOutcome,
  sessionId: row.sessionid,
  timestamp: row.happenedat,
  tags: parse<string[]>(row.tags),
  metadata: parse<JsonObject>(row.metadata),
});

/** A `EpisodeStore` on PostgreSQL plus `migrate()`, `sql`, `schema` and `close()`. */
export interface PostgresEpisodeStore extends EpisodeStore, PostgresHandle {}

/** The episode port over a runtime whose families include `episodic` (the runtime's handle stays with its owner). */
export function episodeStoreOn(rt: PortRuntime): EpisodeStore {
  const { sql, s } = rt;
  const search = arms(rt, 'episodes');
  return {
    name: ADAPTER,
    capabilities: CAPABILITIES,
    insert(space, e, embedding) {
      return rt.run('storing an episode', async () => {
        const [vector, model] = embeddingParams(embedding);
        const v = rt.vectorSchema();
        try {
          await exec(
            sql,
            `INSERT INTO ${s}.episodes (space, id, summary, key_decisions, tools_used, outcome, session_id, happened_at,
               tags, metadata, search_text, embedding, embedding_model)
             VALUES ($1, $2, $3, $4::text[], $5::text[], $6, $7, $8::text::timestamptz, $9::text[], $10::text::jsonb, $11,
               $12::text::${v}.vector, $13)`,
            [
              space,
              e.id,
              e.summary,
              e.keyDecisions,
              e.toolsUsed,
              e.outcome,
              e.sessionId,
              e.timestamp,
              e.tags,
              JSON.stringify(e.metadata),
              episodeSearchText(e),
              vector,
              model,
            ],
          );
        } catch (error) {
          if (isUniqueViolation(error, 'episodes_pkey')) throw duplicateId('episode', e.id, error);
          throw error;
        }
      });
    },
    get(space, id) {
      return rt.run('reading an episode', async () => {
        const [row] = await exec<EpisodeRow[]>(
          sql,
          `SELECT ${EPISODE_COLS} FROM ${s}.episodes e WHERE e.space = $1 AND e.id = $2`,
          [space, id],
        );
        return row === undefined ? null : toEpisode(row);
      });
    },
    getMany(space, ids) {
      return rt.run('reading episodes', async () => {
        if (ids.length === 0) return [];
        const rows = await exec<EpisodeRow[]>(
          sql,
          `SELECT ${EPISODE_COLS} FROM ${s}.episodes e WHERE e.space = $1 AND e.id = ANY($2::text[])`,
          [space, [...new Set(ids)]],
        );
        return inOrder(rows, ids).map(toEpisode);
      });
    },
    recent(space, limit) {
      return rt.run('listing episodes', async () => {
        const n = rowLimit(limit);
        if (n === 0) return [];
        const rows = await exec<EpisodeRow[]>(
          sql,
          `SELECT ${EPISODE_COLS} FROM ${s}.episodes e WHERE e.space = $1
           ORDER BY e.happened_at DESC, e.id DESC LIMIT $2`,
          [space, n],
        );
        return rows.map(toEpisode);
      });
    },
    byTag(space, tag, limit) {
      return rt.run('listing episodes by tag', async () => {
        const n = rowLimit(limit);
        if (n === 0 || tag.includes('\u0000')) return [];
        // Array containment: whole elements compared with text equality (no LIKE, no case folding); GIN-indexed.
        const rows = await exec<EpisodeRow[]>(
          sql,
          `SELECT ${EPISODE_COLS} FROM ${s}.episodes e WHERE e.space = $1 AND e.tags @> ARRAY[$2::text]
           ORDER BY e.happened_at DESC, e.id DESC LIMIT $3`,
          [space, tag, n],
        );
        return rows.map(toEpisode);
      });
    },
    count(space) {
      return rt.run('counting episodes', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `SELECT count(*)::int AS n FROM ${s}.episodes WHERE space = $1`,
          [space],
        );
        return Number(row?.n ?? 0);
      });
    },
    keywordSearch(space, terms, limit) {
      return rt.run('searching episodes', () => search.keyword(space, terms, limit));
    },
    vectorSearch(space, vector, model, limit) {
      return rt.run('searching episodes by vector', () => search.vector(space, vector, model, limit));
    },
    delete(space, id) {
      return rt.run('deleting an episode', async () => {
        const rows = await exec(sql, `DELETE FROM ${s}.episodes WHERE space = $1 AND id = $2 RETURNING 1 AS one`, [
          space,
          id,
        ]);
        return rows.length > 0;
      });
    },
  };
}

// ---------- procedures ----------

interface ProcedureRow {
  id: string;
  name: string;
  description: string;
  trigger: string;
  steps: string;
  successcount: number;
  failurecount: number;
  tags: string;
  metadata: string;
  createdat: string;
  updatedat: string;
}

const PROCEDURE_COLS = `id, name, description, trigger_text AS trigger, steps::text AS steps,
  success_count AS successcount, failure_count AS failurecount, array_to_json(tags)::text AS tags,
  metadata::text AS metadata, ${iso('created_at')} AS createdat, ${iso('updated_at')} AS updatedat`;

const toProcedure = (row: ProcedureRow): Procedure => ({
  id: row.id,
  name: row.name,
  description: row.description,
  trigger: row.trigger,
  steps: parse<ProcedureStep[]>(row.steps),
  successCount: Number(row.successcount),
  failureCount: Number(row.failurecount),
  tags: parse<string[]>(row.tags),
  metadata: parse<JsonObject>(row.metadata),
  createdAt: row.createdat,
  updatedAt: row.updatedat,
});

/** A `ProcedureStore` on PostgreSQL plus `migrate()`, `sql`, `schema` and `close()`. */
export interface PostgresProcedureStore extends ProcedureStore, PostgresHandle {}

/** The procedure port over a runtime whose families include `episodic` (the runtime's handle stays with its owner). */
export function procedureStoreOn(rt: PortRuntime): ProcedureStore {
  const { sql, s } = rt;
  const search = arms(rt, 'procedures');
  return {
    name: ADAPTER,
    capabilities: CAPABILITIES,
    insert(space, p, embedding) {
      return rt.run('storing a procedure', async () => {
        const [vector, model] = embeddingParams(embedding);
        const v = rt.vectorSchema();
        try {
          await exec(
            sql,
            `INSERT INTO ${s}.procedures (space, id, name, description, trigger_text, steps, success_count, failure_count,
               tags, metadata, created_at, updated_at, search_text, embedding, embedding_model)
             VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8, $9::text[], $10::text::jsonb, $11::text::timestamptz,
               $12::text::timestamptz, $13, $14::text::${v}.vector, $15)`,
            [
              space,
              p.id,
              p.name,
              p.description,
              p.trigger,
              JSON.stringify(p.steps),
              p.successCount,
              p.failureCount,
              p.tags,
              JSON.stringify(p.metadata),
              p.createdAt,
              p.updatedAt,
              procedureSearchText(p),
              vector,
              model,
            ],
          );
        } catch (error) {
          if (isUniqueViolation(error, 'procedures_pkey')) throw duplicateId('procedure', p.id, error);
          throw error;
        }
      });
    },
    get(space, id) {
      return rt.run('reading a procedure', async () => {
        const [row] = await exec<ProcedureRow[]>(
          sql,
          `SELECT ${PROCEDURE_COLS} FROM ${s}.procedures WHERE space = $1 AND id = $2`,
          [space, id],
        );
        return row === undefined ? null : toProcedure(row);
      });
    },
    getMany(space, ids) {
      return rt.run('reading procedures', async () => {
        if (ids.length === 0) return [];
        const rows = await exec<ProcedureRow[]>(
          sql,
          `SELECT ${PROCEDURE_COLS} FROM ${s}.procedures WHERE space = $1 AND id = ANY($2::text[])`,
          [space, [...new Set(ids)]],
        );
        return inOrder(rows, ids).map(toProcedure);
      });
    },
    list(space, limit) {
      return rt.run('listing procedures', async () => {
        const n = rowLimit(limit);
        if (n === 0) return [];
        const rows = await exec<ProcedureRow[]>(
          sql,
          `SELECT ${PROCEDURE_COLS} FROM ${s}.procedures WHERE space = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
          [space, n],
        );
        return rows.map(toProcedure);
      });
    },
    count(space) {
      return rt.run('counting procedures', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `SELECT count(*)::int AS n FROM ${s}.procedures WHERE space = $1`,
          [space],
        );
        return Number(row?.n ?? 0);
      });
    },
    keywordSearch(space, terms, limit) {
      return rt.run('searching procedures', () => search.keyword(space, terms, limit));
    },
    vectorSearch(space, vector, model, limit) {
      return rt.run('searching procedures by vector', () => search.vector(space, vector, model, limit));
    },
    incrementOutcome(space, id, success, at) {
      return rt.run('recording a procedure outcome', async () => {
        // One statement, never read-modify-write: the row lock orders concurrent reports and each adds its 1.
        const [row] = await exec<ProcedureRow[]>(
          sql,
          `UPDATE ${s}.procedures SET
             success_count = success_count + CASE WHEN $1::boolean THEN 1 ELSE 0 END,
             failure_count = failure_count + CASE WHEN $1::boolean THEN 0 ELSE 1 END,
             updated_at = $2::text::timestamptz
           WHERE space = $3 AND id = $4
           RETURNING ${PROCEDURE_COLS}`,
          [success, at, space, id],
        );
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
      return rt.run('deleting a procedure', async () => {
        const rows = await exec(sql, `DELETE FROM ${s}.procedures WHERE space = $1 AND id = $2 RETURNING 1 AS one`, [
          space,
          id,
        ]);
        return rows.length > 0;
      });
    },
  };
}

// ---------- standalone factories ----------

/** The episode store alone, on `{ url }` (its own pool) or `{ sql }` (a shared client). */
export async function createPostgresEpisodeStore(options: PostgresPortOptions): Promise<PostgresEpisodeStore> {
  const rt = await openRuntime(options, [episodicMigrations], 'episode store');
  return { ...episodeStoreOn(rt), ...handleOf(rt) };
}

/** The procedure store alone, on `{ url }` (its own pool) or `{ sql }` (a shared client). */
export async function createPostgresProcedureStore(options: PostgresPortOptions): Promise<PostgresProcedureStore> {
  const rt = await openRuntime(options, [episodicMigrations], 'procedure store');
  return { ...procedureStoreOn(rt), ...handleOf(rt) };
}
