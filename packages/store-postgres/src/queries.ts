import type { SearchFilter } from '@mem/core/adapter';
import { Params, type SqlParams } from './connection.js';

/** Where the tables and the pgvector objects live (both already quoted). */
export interface QueryContext {
  schema: string;
  vectorSchema: string;
}

export interface BuiltQuery {
  text: string;
  params: SqlParams;
}

/**
 * The WHERE clause every search arm shares (alias `c`), parameters appended to `p`: space, visibility, expiry,
 * then the optional scope, key prefix, tags and source, then the end user and the world time (docs/formation.md,
 * `matchesFilter` of @mem/core). It sits inside each arm's query, before its LIMIT.
 */
export function filterClause(filter: SearchFilter, p: Params): string {
  const space = p.add(filter.space);
  const viewer = p.add(filter.viewerAgentId);
  const now = p.add(filter.now);
  const parts = [
    `c.space = ${space}`,
    `(c.scope = 'swarm' OR c.agent_id = ${viewer})`,
    `(c.expires_at IS NULL OR c.expires_at > ${now}::text::timestamptz)`,
  ];
  if (filter.scope !== undefined) parts.push(`c.scope = ${p.add(filter.scope)}`);
  // Literal and case-sensitive: starts_with has no wildcards; key is COLLATE "C", so the (space, key) index serves it.
  if (filter.keyPrefix !== undefined && filter.keyPrefix !== '') {
    parts.push(`starts_with(c.key, ${p.add(filter.keyPrefix)})`);
  }
  if (filter.tags !== undefined && filter.tags.length > 0) {
    parts.push(`c.tags @> ${p.add([...new Set(filter.tags)])}::text[]`);
  }
  if (filter.source !== undefined) parts.push(`c.source = ${p.add(filter.source)}`);
  // A memory about a user is seen only by a search for that user.
  parts.push(
    filter.userId === undefined ? 'c.user_id IS NULL' : `(c.user_id IS NULL OR c.user_id = ${p.add(filter.userId)})`,
  );
  // World time: what is current (not ended by now), what held at `asOf` (begun by then and not ended), or everything.
  if (filter.history !== true) {
    if (filter.asOf === undefined) parts.push(`(c.valid_to IS NULL OR c.valid_to > ${now}::text::timestamptz)`);
    else {
      const asOf = p.add(filter.asOf);
      parts.push(
        `(c.valid_to IS NULL OR c.valid_to > ${asOf}::text::timestamptz)`,
        `coalesce(c.valid_from, c.created_at) <= ${asOf}::text::timestamptz`,
      );
    }
  }
  return parts.join(' AND ');
}

/**
 * A search filter compiled once for all the statements of one search: its clause binds $1…$n, and every statement
 * of the search puts its own parameters after them (`new Params(compiled.params)`).
 */
export interface CompiledFilter {
  filter: SearchFilter;
  where: string;
  params: SqlParams;
}

export function compileFilter(filter: SearchFilter): CompiledFilter {
  const p = new Params();
  const where = filterClause(filter, p);
  return { filter, where, params: p.values };
}

/**
 * The tsquery of the keyword arm, built without ever parsing user text as query syntax: the terms go through
 * `to_tsvector` (which only splits words and normalises them: english stemming and stop words, the same
 * configuration as the indexed column), and each resulting lexeme is quoted as a tsquery literal (`'` and `\`
 * doubled, via chr() so no string-literal escaping is involved) and OR-ed. NULL when nothing is left (stop words
 * only): then no row matches, without the notice `to_tsquery` would raise.
 */
export function tsqueryFromTerms(param: string): string {
  const quoted = 'chr(39) || replace(replace(l, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39)';
  return `SELECT nullif(string_agg(DISTINCT ${quoted}, ' | '), '')::tsquery AS query
    FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, ${param}))) AS l`;
}

/**
 * The text whose words the keyword arm ORs: the terms joined by spaces. NUL (which PostgreSQL text cannot hold, and
 * which separates nothing a user typed) becomes a space. '' when no term is left.
 */
export function termsText(terms: readonly string[]): string {
  return terms
    .map((t) => t.replaceAll('\u0000', ' ').trim())
    .filter((t) => t !== '')
    .join(' ');
}

/** A timestamptz column as ISO-8601 UTC text with milliseconds, as every timestamp leaves the stores. */
export function iso(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * How many matching rows the keyword arm scores with `ts_rank_cd` at most: `KEYWORD_POOL_FACTOR × limit`, and never
 * fewer than `KEYWORD_POOL_MIN`.
 */
export const KEYWORD_POOL_FACTOR = 10;
export const KEYWORD_POOL_MIN = 500;

/**
 * Keyword arm: ts_rank_cd over the generated tsvector (normalisation 1: divided by 1 + log(length)), in two steps so
 * that a common word does not cost a cover-density ranking of every matching row (at 100,000 memories a query's
 * words match ~10,000 visible rows, and ts_rank_cd over them was ~3/4 of the arm's time): every visible match is
 * ordered by the much cheaper `ts_rank` (same normalisation), the best `pool` of them are scored with ts_rank_cd,
 * and that score orders the answer. Over the scale bench's 200 queries at 100,000 memories the top 10 stayed the
 * same, in the same order (apps/bench/README.md). Not exact by construction: ts_rank saturates on repeats of one
 * word while ts_rank_cd counts each, so past the pool a long text that repeats the words many times can rank lower
 * than full ts_rank_cd would put it.
 */
export function keywordQuery(ctx: QueryContext, filter: CompiledFilter, text: string, limit: number): BuiltQuery {
  const p = new Params(filter.params);
  const terms = p.add(text);
  const where = filter.where;
  const pool = Math.max(KEYWORD_POOL_MIN, KEYWORD_POOL_FACTOR * limit);
  return {
    text: `WITH q AS MATERIALIZED (${tsqueryFromTerms(terms)}),
      pool AS MATERIALIZED (
        SELECT c.id AS id, c.created_at AS created_at, c.fts AS fts
        FROM ${ctx.schema}.chunks c
        WHERE c.fts @@ (SELECT query FROM q) AND ${where}
        ORDER BY ts_rank(c.fts, (SELECT query FROM q), 1) DESC, c.created_at, c.id
        LIMIT ${p.add(pool)}
      )
      SELECT id, ts_rank_cd(fts, (SELECT query FROM q), 1) AS score
      FROM pool
      ORDER BY score DESC, created_at, id
      LIMIT ${p.add(limit)}`,
    params: p.values,
  };
}

/**
 * Vector arm. The approximate form repeats the HNSW index's expression and predicate exactly (the dimension
 * inlined as a literal, so the partial index matches even in a generic plan); the exact form computes the distance
 * on the raw column, which no index serves. The materialised CTE restores strict order after a relaxed iterative
 * index scan; ties go to the older row.
 */
export function vectorQuery(
  ctx: QueryContext,
  filter: CompiledFilter,
  literal: string,
  dims: number,
  limit: number,
  approximate: boolean,
): BuiltQuery {
  const v = ctx.vectorSchema;
  const p = new Params(filter.params);
  const vec = p.add(literal);
  const where = filter.where;
  const distance = approximate
    ? `(c.embedding::${v}.vector(${dims})) OPERATOR(${v}.<=>) (${vec}::${v}.vector(${dims}))`
    : `c.embedding OPERATOR(${v}.<=>) ${vec}::${v}.vector`;
  return {
    text: `WITH hits AS MATERIALIZED (
        SELECT c.id AS id, c.created_at AS at, ${distance} AS distance
        FROM ${ctx.schema}.chunks c
        WHERE ${v}.vector_dims(c.embedding) = ${dims} AND ${where}
        ORDER BY distance
        LIMIT ${p.add(limit)}
      )
      SELECT id, distance FROM hits ORDER BY distance, at, id`,
    params: p.values,
  };
}

/**
 * The neighbouring-turn lookup in one round trip: per visible id, the `radius` rows of the same owner on each side in
 * (created_at, id) order, ids compared bytewise (COLLATE "C") as the core and the other stores order them. `columns`
 * is the row projection (alias `c`).
 */
export function neighbourQuery(
  ctx: QueryContext,
  filter: CompiledFilter,
  ids: readonly string[],
  radius: number,
  columns: string,
): BuiltQuery {
  const p = new Params(filter.params);
  const idList = p.add([...new Set(ids)]);
  const r = p.add(radius);
  const side = (cmp: '<' | '>', order: 'ASC' | 'DESC') => `(SELECT ${columns} FROM ${ctx.schema}.chunks c
        WHERE ${filter.where} AND c.scope = a.scope AND c.agent_id = a.agent_id AND c.source = a.source
          AND (c.created_at, c.id COLLATE "C") ${cmp} (a.created_at, a.id COLLATE "C")
        ORDER BY c.created_at ${order}, c.id COLLATE "C" ${order} LIMIT ${r})`;
  return {
    text: `WITH a AS MATERIALIZED (
        SELECT c.id, c.scope, c.agent_id, c.source, c.created_at FROM ${ctx.schema}.chunks c
        WHERE c.id = ANY(${idList}::text[]) AND ${filter.where}
      )
      SELECT DISTINCT ON (n.id) n.* FROM a CROSS JOIN LATERAL (${side('<', 'DESC')} UNION ALL ${side('>', 'ASC')}) n`,
    params: p.values,
  };
}

/** Per-transaction settings of the approximate vector arm. */
export function hnswSettings(efSearch: number, iterativeScan: boolean): string {
  const ef = `set_config('hnsw.ef_search', '${Math.max(1, Math.min(1000, Math.floor(efSearch)))}', true)`;
  return iterativeScan ? `SELECT ${ef}, set_config('hnsw.iterative_scan', 'relaxed_order', true)` : `SELECT ${ef}`;
}

/**
 * Keyword arm of the episode and procedure stores: the same tsquery as the knowledge store's (`tsqueryFromTerms`)
 * over the table's generated `fts` (english tsvector of exactly the core's search text), within one space.
 * `table` is schema-qualified and quoted.
 */
export function candidateKeywordQuery(table: string, space: string, text: string, limit: number | null): BuiltQuery {
  return {
    text: `WITH q AS MATERIALIZED (${tsqueryFromTerms('$1')})
      SELECT t.id AS id, ts_rank_cd(t.fts, (SELECT query FROM q), 1) AS score
      FROM ${table} t
      WHERE t.space = $2 AND t.fts @@ (SELECT query FROM q)
      ORDER BY score DESC, t.id
      LIMIT $3`,
    params: [text, space, limit],
  };
}

/**
 * Vector arm of the episode and procedure stores: exact cosine distance against the vectors of one embedder model
 * with the query's dimension (other models' vectors are never compared), within one space; ties by id.
 */
export function candidateVectorQuery(
  table: string,
  vectorSchema: string,
  space: string,
  literal: string,
  dims: number,
  model: string,
  limit: number | null,
): BuiltQuery {
  const v = vectorSchema;
  return {
    text: `SELECT t.id AS id, t.embedding OPERATOR(${v}.<=>) $1::${v}.vector AS distance
      FROM ${table} t
      WHERE t.space = $2 AND t.embedding_model = $3 AND ${v}.vector_dims(t.embedding) = $4
      ORDER BY distance, t.id
      LIMIT $5`,
    params: [literal, space, model, dims, limit],
  };
}
