/**
 * The episode and procedure stores over any SQL engine: the record statements written once; the engine brings its
 * keyword and vector arms, its vector parameter and, for episodes, its tag lookup.
 */

import { episodeSearchText, procedureSearchText } from '../../domain/search-text.js';
import { MemError } from '../../errors.js';
import type { CandidateStoreCapabilities, EpisodeStore } from '../../ports/episode-store.js';
import type { KeywordHit, VectorHit } from '../../ports/knowledge-store.js';
import type { ProcedureStore } from '../../ports/procedure-store.js';
import type { StoredEmbedding } from '../../types-structured.js';
import { inOrder } from '../rows.js';
import { sqlConflicts } from './conflicts.js';
import { type SqlDialect, type SqlRunner, type SqlType, selectList, sqlRowCount } from './dialect.js';
import { type SqlProgram, type SqlValue, sqlAll, sqlGet, sqlRun } from './program.js';
import { SQL_RECORDS, type SqlRow } from './records.js';

/** The two candidate tables. */
export type SqlCandidateTable = 'episodes' | 'procedures';

/** What an engine adds to the shared candidate stores: its vectors and its two search arms. */
export interface SqlCandidateEngine {
  /** The embedding as its two parameters (vector, model); nulls for none. */
  embedding(embedding: StoredEmbedding | null): readonly [SqlValue, SqlValue];
  /** The placeholder of the vector parameter `n`. */
  vectorParam(n: number): string;
  /** Keyword hits of the OR-ed terms in one space, best first, scores > 0. */
  keyword(table: SqlCandidateTable, space: string, terms: readonly string[], limit: number): SqlProgram<KeywordHit[]>;
  /** Cosine hits against vectors of `model` with the query's dimension, best first. */
  vector(
    table: SqlCandidateTable,
    space: string,
    vector: Float32Array,
    model: string,
    limit: number,
  ): SqlProgram<VectorHit[]>;
}

/** The episode part of an engine: its time column, its tag lookup and, when tags have their own table, its writes. */
export interface SqlEpisodeEngine extends SqlCandidateEngine {
  /** The column of the episode's time. */
  readonly timeColumn: string;
  /** Rows of `columns` (alias `e`) of the episodes with `tag`, newest first, ties by id descending. */
  byTag(columns: string, space: string, tag: string, limit: SqlValue): SqlProgram<SqlRow[]>;
  /** A tag table kept beside the episodes: written with each insert and delete, in the same transaction. */
  readonly tagTable?: {
    insert(space: string, id: string, tags: readonly string[]): SqlProgram<void>;
    delete(space: string, id: string): SqlProgram<void>;
  };
}

const CAPABILITIES: CandidateStoreCapabilities = { keyword: true, vector: true };

// The parameter types of the two inserts, in column order.
const EPISODE_TYPES = [
  'text',
  'text',
  'text',
  'list',
  'list',
  'text',
  'text',
  'time',
  'list',
  'json',
  'text',
  'vector',
  'text',
] as const;
const PROCEDURE_TYPES = [
  ...['text', 'text', 'text', 'text', 'text', 'json', 'int', 'int', 'list', 'json', 'time', 'time', 'text'],
  ...['vector', 'text'],
] as const;

/** The placeholders of parameters 1…n of `types`, in order (the vector's from the engine). */
function values(d: SqlDialect, engine: SqlCandidateEngine, types: readonly (SqlType | 'vector')[]): string {
  return types.map((t, i) => (t === 'vector' ? engine.vectorParam(i + 1) : d.param(i + 1, t))).join(', ');
}

function notFound(d: SqlDialect, id: string): MemError {
  return new MemError(
    'NOT_FOUND',
    `${d.adapter}: no procedure with id "${id}" in this space. List procedures to find its id.`,
    { details: { id } },
  );
}

/** The statements both candidate tables share: count and the two arms. */
function common(d: SqlDialect, r: SqlRunner, engine: SqlCandidateEngine, table: SqlCandidateTable, noun: string) {
  const t = d.table(table);
  const countSql = `SELECT ${d.count} AS n FROM ${t} WHERE space = ${d.param(1)}`;
  return {
    count: (space: string) =>
      r.run(`counting ${noun}`, function* () {
        return Number((yield* sqlGet<{ n: number }>(countSql, [space]))?.n ?? 0);
      }),
    keywordSearch: (space: string, terms: readonly string[], limit: number) =>
      r.run(`searching ${noun}`, () => engine.keyword(table, space, terms, limit)),
    vectorSearch: (space: string, vector: Float32Array, model: string, limit: number) =>
      r.run(`searching ${noun} by vector`, () => engine.vector(table, space, vector, model, limit)),
  };
}

/** The episode port over a dialect, a runner and the engine's parts. */
export function sqlEpisodeStore(d: SqlDialect, r: SqlRunner, engine: SqlEpisodeEngine): EpisodeStore {
  const record = SQL_RECORDS.episode(engine.timeColumn);
  const t = d.table('episodes');
  const cols = selectList(d, record.fields, 'e');
  const time = engine.timeColumn;
  const byId = `SELECT ${cols} FROM ${t} e WHERE e.space = ${d.param(1)} AND e.id = ${d.param(2)}`;
  const byIds = `SELECT ${cols} FROM ${t} e WHERE e.space = ${d.param(1)} AND ${d.inList('e.id', 2)}`;
  const recent = `SELECT ${cols} FROM ${t} e WHERE e.space = ${d.param(1)}
    ORDER BY e.${time} DESC, e.id DESC LIMIT ${d.param(2)}`;
  const remove = `DELETE FROM ${t} WHERE space = ${d.param(1)} AND id = ${d.param(2)}`;
  const tags = engine.tagTable;
  const write = tags === undefined ? r.run.bind(r) : r.transaction.bind(r);
  return {
    name: d.adapter,
    capabilities: CAPABILITIES,
    ...common(d, r, engine, 'episodes', 'episodes'),
    insert(space, e, embedding) {
      return write(
        'storing an episode',
        function* () {
          const sql = `INSERT INTO ${t} (space, id, summary, key_decisions, tools_used, outcome, session_id, ${time},
              tags, metadata, search_text, embedding, embedding_model)
            VALUES (${values(d, engine, EPISODE_TYPES)})`;
          yield* sqlRun(sql, [
            space,
            e.id,
            e.summary,
            d.list(e.keyDecisions),
            d.list(e.toolsUsed),
            e.outcome,
            e.sessionId,
            e.timestamp,
            d.list(e.tags),
            JSON.stringify(e.metadata),
            episodeSearchText(e),
            ...engine.embedding(embedding),
          ]);
          if (tags !== undefined) yield* tags.insert(space, e.id, e.tags);
        },
        (error) => (d.isDuplicate(error, 'episodes') ? sqlConflicts.duplicateId(d, 'episode', e.id, error) : null),
      );
    },
    get(space, id) {
      return r.run('reading an episode', function* () {
        const row = yield* sqlGet<SqlRow>(byId, [space, id]);
        return row === undefined ? null : record.from(row);
      });
    },
    getMany(space, ids) {
      return r.run('reading episodes', function* () {
        if (ids.length === 0) return [];
        const rows = yield* sqlAll<SqlRow & { id: string }>(byIds, [space, d.list([...new Set(ids)])]);
        return inOrder(rows, ids).map(record.from);
      });
    },
    recent(space, limit) {
      return r.run('listing episodes', function* () {
        const n = sqlRowCount(limit);
        if (n === 0) return [];
        return (yield* sqlAll<SqlRow>(recent, [space, d.limit(n)])).map(record.from);
      });
    },
    byTag(space, tag, limit) {
      return r.run('listing episodes by tag', function* () {
        const n = sqlRowCount(limit);
        if (n === 0) return [];
        return (yield* engine.byTag(cols, space, tag, d.limit(n))).map(record.from);
      });
    },
    delete(space, id) {
      return write('deleting an episode', function* () {
        if (tags !== undefined) yield* tags.delete(space, id);
        return (yield* sqlRun(remove, [space, id])) > 0;
      });
    },
  };
}

/** The procedure port over a dialect, a runner and the engine's parts. */
export function sqlProcedureStore(d: SqlDialect, r: SqlRunner, engine: SqlCandidateEngine): ProcedureStore {
  const record = SQL_RECORDS.procedure;
  const t = d.table('procedures');
  const cols = selectList(d, record.fields);
  const byId = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND id = ${d.param(2)}`;
  const byIds = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND ${d.inList('id', 2)}`;
  const list = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} ORDER BY created_at DESC, id DESC LIMIT ${d.param(2)}`;
  // One statement, never read-modify-write: concurrent reports from other connections are all counted.
  const increment = (column: string) =>
    `UPDATE ${t} SET ${column} = ${column} + 1, updated_at = ${d.param(1, 'time')}
     WHERE space = ${d.param(2)} AND id = ${d.param(3)} RETURNING ${cols}`;
  const success = increment('success_count');
  const failure = increment('failure_count');
  const remove = `DELETE FROM ${t} WHERE space = ${d.param(1)} AND id = ${d.param(2)}`;
  return {
    name: d.adapter,
    capabilities: CAPABILITIES,
    ...common(d, r, engine, 'procedures', 'procedures'),
    insert(space, p, embedding) {
      return r.run(
        'storing a procedure',
        function* () {
          const sql = `INSERT INTO ${t} (space, id, name, description, trigger_text, steps, success_count, failure_count,
              tags, metadata, created_at, updated_at, search_text, embedding, embedding_model)
            VALUES (${values(d, engine, PROCEDURE_TYPES)})`;
          yield* sqlRun(sql, [
            space,
            p.id,
            p.name,
            p.description,
            p.trigger,
            JSON.stringify(p.steps),
            p.successCount,
            p.failureCount,
            d.list(p.tags),
            JSON.stringify(p.metadata),
            p.createdAt,
            p.updatedAt,
            procedureSearchText(p),
            ...engine.embedding(embedding),
          ]);
        },
        (error) => (d.isDuplicate(error, 'procedures') ? sqlConflicts.duplicateId(d, 'procedure', p.id, error) : null),
      );
    },
    get(space, id) {
      return r.run('reading a procedure', function* () {
        const row = yield* sqlGet<SqlRow>(byId, [space, id]);
        return row === undefined ? null : record.from(row);
      });
    },
    getMany(space, ids) {
      return r.run('reading procedures', function* () {
        if (ids.length === 0) return [];
        const rows = yield* sqlAll<SqlRow & { id: string }>(byIds, [space, d.list([...new Set(ids)])]);
        return inOrder(rows, ids).map(record.from);
      });
    },
    list(space, limit) {
      return r.run('listing procedures', function* () {
        const n = sqlRowCount(limit);
        if (n === 0) return [];
        return (yield* sqlAll<SqlRow>(list, [space, d.limit(n)])).map(record.from);
      });
    },
    incrementOutcome(space, id, succeeded, at) {
      return r.run('recording a procedure outcome', function* () {
        const row = yield* sqlGet<SqlRow>(succeeded ? success : failure, [at, space, id]);
        if (row === undefined) throw notFound(d, id);
        return record.from(row);
      });
    },
    delete(space, id) {
      return r.run('deleting a procedure', function* () {
        return (yield* sqlRun(remove, [space, id])) > 0;
      });
    },
  };
}
