/**
 * Row helpers every store adapter needs (the adapter kit, exported from `@mem/core/adapter`): pure functions over
 * what a database hands back, so that each adapter keeps only its engine code.
 */
import { MemError } from '../errors.js';
import type { Scope } from '../types.js';

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

/**
 * KEY_TAKEN as every knowledge store answers it when a write meets the unique (space, scope, agentId, key) of another
 * document: the key, the owner, the holder's id when the store could read it, and what to do.
 */
export function keyTakenByStore(
  key: string,
  scope: Scope,
  agentId: string,
  holder: string | null,
  cause?: unknown,
): MemError {
  return new MemError(
    'KEY_TAKEN',
    `Key ${key} is already taken by another memory${holder ? ` (${holder})` : ''} of ${agentId} at ${scope} scope. Use memory-edit to change that memory, or choose another key.`,
    {
      ...(cause === undefined ? {} : { cause }),
      details: { key, scope, agentId, ...(holder ? { docId: holder } : {}) },
    },
  );
}
