/** Helpers for JSON values (fact values, state, metadata). Pure functions. */
import type { JsonValue } from '../types-structured.js';

/** JSON text with object keys sorted at every level, so that equal values give equal text. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(',')}}`;
}

/** Deep equality of two JSON values (object key order does not matter, array order does). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Size of the value as UTF-8 JSON text, in bytes. */
export function jsonBytes(value: JsonValue): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** A deep copy (stores hand out copies so that callers never alias stored values). */
export function cloneJson<T extends JsonValue>(value: T): T {
  return value === null || typeof value !== 'object' ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** `table[key]` for the table's own keys only: a word like "constructor" or "__proto__" in a text finds nothing. */
export const own = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;
