/**
 * The episode and procedure stores (docs/structured.md) on PostgreSQL. They return candidates: keyword hits from the same
 * tsquery as the knowledge store (`tsqueryFromTerms`, english lexemes OR-ed, never parsed as query syntax) over a
 * generated tsvector of exactly `episodeSearchText` / `procedureSearchText` of @mem/core/adapter, ranked by `ts_rank_cd`;
 * vector hits by exact cosine (pgvector `<=>`) over the vectors of the same embedder model. @mem/episodic and
 * @mem/procedural rank them. Every statement is filtered by space. The record statements are the shared ones of
 * @mem/core/adapter.
 */
import type {
  EpisodeStore,
  KeywordHit,
  ProcedureStore,
  SqlCandidateTable,
  SqlEpisodeEngine,
  SqlProgram,
  SqlRow,
  SqlValue,
  VectorHit,
} from '@mem/core/adapter';
import { clampSimilarity, sqlAll, sqlEpisodeStore, sqlProcedureStore } from '@mem/core/adapter';
import { episodicMigrations } from './migrations.js';
import { type BuiltQuery, candidateKeywordQuery, candidateVectorQuery, termsText } from './queries.js';
import {
  handleOf,
  openRuntime,
  type PortRuntime,
  type PostgresHandle,
  type PostgresPortOptions,
  rowLimit,
} from './runtime.js';
import { postgresDialect, postgresRunner } from './sql-layer.js';
import { vectorLiteral } from './vectors.js';

const rowsOf = <R>(q: BuiltQuery): SqlProgram<R[]> => sqlAll<R>(q.text, q.params as SqlValue[]);

/** PostgreSQL's parts of the shared candidate stores: pgvector literals, the tsquery and `<=>` arms, array tags. */
function engineOf(rt: PortRuntime): SqlEpisodeEngine {
  return {
    // An empty vector is stored as none.
    embedding: (e) => (e === null || e.vector.length === 0 ? [null, null] : [vectorLiteral(e.vector), e.model]),
    // The extension's schema is known once the store is ready, which is before any statement is built.
    vectorParam: (n) => `$${n}::text::${rt.vectorSchema()}.vector`,
    *keyword(table: SqlCandidateTable, space, terms, limit): SqlProgram<KeywordHit[]> {
      const text = termsText(terms);
      const n = rowLimit(limit);
      if (text === '' || n === 0) return [];
      const rows = yield* rowsOf<{ id: string; score: number }>(
        candidateKeywordQuery(`${rt.s}.${table}`, space, text, n),
      );
      return rows.map((row) => ({ id: row.id, score: Number(row.score) })).filter((hit) => hit.score > 0);
    },
    *vector(table: SqlCandidateTable, space, vector, model, limit): SqlProgram<VectorHit[]> {
      const n = rowLimit(limit);
      if (n === 0 || vector.length === 0) return [];
      const q = candidateVectorQuery(
        `${rt.s}.${table}`,
        rt.vectorSchema(),
        space,
        vectorLiteral(vector),
        vector.length,
        model,
        n,
      );
      const rows = yield* rowsOf<{ id: string; distance: number }>(q);
      return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - Number(row.distance)) }));
    },
    timeColumn: 'happened_at',
    *byTag(columns, space, tag, limit): SqlProgram<SqlRow[]> {
      if (tag.includes('\u0000')) return [];
      // Array containment: whole elements compared with text equality (no LIKE, no case folding); GIN-indexed.
      return yield* sqlAll<SqlRow>(
        `SELECT ${columns} FROM ${rt.s}.episodes e WHERE e.space = $1 AND e.tags @> ARRAY[$2::text]
         ORDER BY e.happened_at DESC, e.id DESC LIMIT $3`,
        [space, tag, limit],
      );
    },
  };
}

/** A `EpisodeStore` on PostgreSQL plus `migrate()`, `sql`, `schema` and `close()`. */
export interface PostgresEpisodeStore extends EpisodeStore, PostgresHandle {}

/** A `ProcedureStore` on PostgreSQL plus `migrate()`, `sql`, `schema` and `close()`. */
export interface PostgresProcedureStore extends ProcedureStore, PostgresHandle {}

/** The episode port over a runtime whose families include `episodic` (the runtime's handle stays with its owner). */
export function episodeStoreOn(rt: PortRuntime): EpisodeStore {
  return sqlEpisodeStore(postgresDialect(rt), postgresRunner(rt), engineOf(rt));
}

/** The procedure port over a runtime whose families include `episodic` (the runtime's handle stays with its owner). */
export function procedureStoreOn(rt: PortRuntime): ProcedureStore {
  return sqlProcedureStore(postgresDialect(rt), postgresRunner(rt), engineOf(rt));
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
