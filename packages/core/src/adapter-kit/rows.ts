/**
 * Row helpers every store adapter needs (the adapter kit, exported from `@mem/core/adapter`): pure functions over
 * what a database hands back, so that each adapter keeps only its engine code.
 */

/**
 * The rows of a batch read put back in the order the caller asked for them: one row per id of `ids` (an id asked
 * twice gives its row twice), ids without a row skipped. Databases return `WHERE id IN (…)` rows in any order.
 */
export function inOrder<R extends { id: string }>(rows: readonly R[], ids: readonly string[]): R[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const out: R[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row !== undefined) out.push(row);
  }
  return out;
}

/**
 * The tags of a memory as a store keeps them (a JSON array in a text column), read back leniently: anything that
 * is not a JSON array gives no tags, and entries that are not strings are dropped.
 */
export function parseTags(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
}
