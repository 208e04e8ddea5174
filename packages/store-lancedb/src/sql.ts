import type { Table } from '@lancedb/lancedb';
import type { SearchFilter } from '@mem/core/adapter';
import type { Row } from './schema.js';

/** Longest IN (…) list per query. */
const BATCH = 500;

/** `items` in slices of at most `size` (for IN lists). */
export function chunked<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Rows of `table` matching `where` (optionally only `columns`, at most `limit`). */
export async function rows(table: Table, where: string, limit?: number, columns?: string[]): Promise<Row[]> {
  let q = table.query().where(where);
  if (columns) q = q.select(columns);
  if (limit !== undefined) q = q.limit(limit);
  return (await q.toArray()) as Row[];
}

/**
 * SQL text for LanceDB predicates (DataFusion dialect). User text only ever reaches a predicate as a string
 * literal built here: single quotes doubled, backslashes literal (the dialect has no backslash escapes), and the
 * string made well-formed UTF-16 so that the native layer never rejects it. Column names are fixed identifiers.
 */
export function sqlString(value: string): string {
  return `'${wellFormed(value).replaceAll("'", "''")}'`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replace lone UTF-16 surrogates by U+FFFD, as the UTF-8 encoding of stored strings does. */
export function wellFormed(value: string): string {
  return value.replace(LONE_SURROGATE, '\uFFFD');
}

/** `column IN ('a', 'b')` for a non-empty list (callers batch long lists). */
export function sqlIn(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}

/** Predicate for every row of one document. */
export function docPredicate(space: string, docId: string): string {
  return `space = ${sqlString(space)} AND doc_id = ${sqlString(docId)}`;
}

/**
 * The predicate every search arm shares, mirroring the filter of the in-memory knowledge store of @mem/core: space, visibility (swarm scope or
 * the viewer's own agent scope), not expired, then the optional scope, key prefix (literal and case-sensitive:
 * `left(key, n) = prefix`, never LIKE, so `%`, `_` and `\` are plain characters — not `starts_with` either, which
 * LanceDB 0.31 answers from the BTREE index of `key` as an unescaped LIKE once that index covers the rows: `_`
 * then matched any character and a backslash nothing), tags (every tag listed, exact) and source; then the user and
 * the world time of formation (`matchesFilter` / `heldAt` of @mem/core, docs/formation.md): a row about a user only
 * for a search for that user, and unless `history`, what is current (`valid_to` null or after now) or, with `asOf`,
 * what held then (begun by `asOf` — `valid_from`, else `created_at` — and not ended). Times compare as ISO text.
 * LanceDB applies it before the top-k cut (prefilter) in both the vector and the full-text arm.
 */
export function filterPredicate(filter: SearchFilter): string {
  const parts = [
    `space = ${sqlString(filter.space)}`,
    `(scope = 'swarm' OR (scope = 'agent' AND agent_id = ${sqlString(filter.viewerAgentId)}))`,
    `(expires_at IS NULL OR expires_at > ${sqlString(filter.now)})`,
  ];
  if (filter.scope !== undefined) parts.push(`scope = ${sqlString(filter.scope)}`);
  if (filter.keyPrefix !== undefined && filter.keyPrefix !== '')
    // `left` counts characters (code points), as the spread does after the same clean-up sqlString makes.
    parts.push(`left(key, ${[...wellFormed(filter.keyPrefix)].length}) = ${sqlString(filter.keyPrefix)}`);
  if (filter.tags !== undefined && filter.tags.length > 0) {
    const tags = [...new Set(filter.tags)];
    parts.push(`array_has_all(tags, [${tags.map(sqlString).join(', ')}])`);
  }
  if (filter.source !== undefined) parts.push(`source = ${sqlString(filter.source)}`);
  parts.push(
    filter.userId === undefined ? 'user_id IS NULL' : `(user_id IS NULL OR user_id = ${sqlString(filter.userId)})`,
  );
  if (filter.history !== true) {
    const at = sqlString(filter.asOf ?? filter.now);
    parts.push(`(valid_to IS NULL OR valid_to > ${at})`);
    if (filter.asOf !== undefined) parts.push(`coalesce(valid_from, created_at) <= ${at}`);
  }
  return parts.join(' AND ');
}

/**
 * The text of the full-text query: the core's terms, cleaned and de-duplicated, joined by spaces. It is passed to
 * a LanceDB `MatchQuery` (operator OR, no fuzziness), which runs it through the index tokenizer and has no query
 * syntax at all: quotes, `AND`/`OR`/`NOT`, `*`, `:`, `+`/`-`, parentheses and backslashes are plain text (an
 * operator word is just a word to match). Returns null when nothing is left to search for.
 */
export function matchText(terms: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const term of terms) {
    // Control characters separate nothing a user meant; make them spaces so tokens never glue together.
    const clean = wellFormed(term)
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .trim();
    if (clean !== '') seen.add(clean);
  }
  if (seen.size === 0) return null;
  return [...seen].join(' ');
}
