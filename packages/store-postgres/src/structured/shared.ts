/** What the structured ports of PostgreSQL share: JSON reading, the topic match, scope locks, deletes by session prefix. */
import { exec, type TransactionSql } from '../connection.js';
import { compositeKey, type PortRuntime } from '../runtime.js';

export const parse = <T>(text: string): T => JSON.parse(text) as T;

/**
 * `topic` matches a nullable parameter (null = the global scope). The same two expressions as the unique indexes of
 * facts and goals, so those indexes serve the lookups.
 */
export const topicIs = (param: string, column = 'topic') =>
  `(${column} IS NULL) = (${param}::text IS NULL) AND coalesce(${column}, '') = coalesce(${param}::text, '')`;

/** Serialise the writers of one (space, user, topic) for the rest of the transaction. */
export async function lockScope(tx: TransactionSql, rt: PortRuntime, what: string, ...parts: string[]): Promise<void> {
  await exec(tx, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `${what}|${compositeKey(rt.schema, ...parts)}`,
  ]);
}

// ---------- sessions by prefix (summaries, session state, phases, tool events) ----------

/**
 * Delete every row of a space whose session id starts with a prefix; returns how many. `starts_with` compares
 * literally (`%`, `_` and `\` are not wildcards, unlike in `LIKE`); a NULL session id never matches.
 */
export async function deleteSessionRows(
  rt: PortRuntime,
  table: string,
  space: string,
  prefix: string,
): Promise<number> {
  const [row] = await exec<{ n: number }[]>(
    rt.sql,
    `WITH d AS (DELETE FROM ${rt.s}.${table} WHERE space = $1 AND starts_with(session_id, $2) RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [space, prefix],
  );
  return Number(row?.n ?? 0);
}
