/** What the structured ports of SQLite share: JSON reading and deletes by session prefix. */
import type { JsonValue } from '@mem/core';

export const parse = <T extends JsonValue>(text: string): T => JSON.parse(text) as T;

/**
 * `DELETE` of every row of a space whose session id starts with a prefix. The prefix is compared with `substr`, not
 * `LIKE`: `%`, `_` and `\` stay literal and the comparison is case-sensitive (SQLite's `LIKE` is not). A NULL
 * session id never matches.
 */
export function deleteSessionsSql(table: string): string {
  return `DELETE FROM ${table} WHERE space = ? AND substr(session_id, 1, length(?)) = ?`;
}
