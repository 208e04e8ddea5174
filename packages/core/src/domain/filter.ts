import type { SearchFilter } from '../ports/knowledge-store.js';
import type { MemoryRecord } from '../types.js';

/** The meaning of a SearchFilter as a predicate (adapters that filter in code use this; SQL adapters mirror it). */
export function matchesFilter(rec: MemoryRecord, f: SearchFilter): boolean {
  if (rec.space !== f.space) return false;
  if (rec.scope === 'agent' && rec.agentId !== f.viewerAgentId) return false;
  if (rec.expiresAt !== null && rec.expiresAt <= f.now) return false;
  if (f.scope && rec.scope !== f.scope) return false;
  if (f.keyPrefix && !rec.key.startsWith(f.keyPrefix)) return false;
  if (f.tags && !f.tags.every((t) => rec.tags.includes(t))) return false;
  if (f.source && rec.source !== f.source) return false;
  if (rec.userId !== null && rec.userId !== f.userId) return false;
  return f.history === true || heldAt(rec, f.asOf ?? f.now, f.asOf !== undefined);
}

/**
 * Whether a memory holds at world time `at`: not yet ended (`validTo` null or after it) and, when `started` is asked
 * (an `asOf` question), already begun (`validFrom`, else `createdAt`, at or before it). What is current asks only the
 * first: a memory said to start later ("from next month") is already known.
 */
export function heldAt(
  rec: Pick<MemoryRecord, 'validFrom' | 'validTo' | 'createdAt'>,
  at: string,
  started: boolean,
): boolean {
  if (rec.validTo !== null && rec.validTo <= at) return false;
  return !started || (rec.validFrom ?? rec.createdAt) <= at;
}
