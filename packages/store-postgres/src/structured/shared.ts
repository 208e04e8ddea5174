/** What the structured ports of PostgreSQL share: JSON reading, the topic match and scope locks. */
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
