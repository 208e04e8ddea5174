/** The names the `index` option of the SQLite store knows, and reading it from JSON (an environment variable). */
import { MemError } from '@mem/core';
import { ADAPTER } from './database.js';
import type { SqliteStoreOptions } from './knowledge/context.js';
import { DEFAULT_VECTOR_INDEX } from './vector-index.js';

const KNOWN: Record<string, readonly string[]> = {
  vector: Object.keys(DEFAULT_VECTOR_INDEX),
  keyword: ['type', 'cacheMiB'],
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Throws (a plain Error, worded for a message) when `index` is not an object or names an option the store does not
 * know: a misspelt option would otherwise be ignored without a word.
 */
export function checkIndexOptionNames(index: unknown): void {
  if (index === undefined) return;
  if (!isPlainObject(index)) throw new Error('index must be an object such as { vector: { nprobe: 48 } }');
  for (const [group, value] of Object.entries(index)) {
    const names = KNOWN[group];
    if (names === undefined) {
      throw new Error(`unknown option index.${group} (the index options are index.vector and index.keyword)`);
    }
    if (value === undefined) continue;
    if (!isPlainObject(value)) throw new Error(`index.${group} must be an object`);
    for (const name of Object.keys(value)) {
      if (!names.includes(name)) {
        throw new Error(`unknown option index.${group}.${name} (index.${group} takes ${names.join(', ')})`);
      }
    }
  }
}

/**
 * The store's `index` option from JSON text such as `{"vector":{"nprobe":48},"keyword":{"cacheMiB":64}}` (the CLI's
 * and server's MEM_SQLITE_INDEX). `source` names where the text came from in the error. The names are checked here;
 * the values when the store opens. INVALID_INPUT when it is not JSON or names an unknown option.
 */
export function sqliteIndexOptionsFromJson(text: string, source: string): NonNullable<SqliteStoreOptions['index']> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new MemError(
      'INVALID_INPUT',
      `${ADAPTER}: ${source} is not JSON (${(error as Error).message}); write it as {"vector":{"nprobe":48}}.`,
    );
  }
  try {
    checkIndexOptionNames(parsed);
  } catch (error) {
    throw new MemError('INVALID_INPUT', `${ADAPTER}: ${source}: ${(error as Error).message}.`);
  }
  return parsed as NonNullable<SqliteStoreOptions['index']>;
}
