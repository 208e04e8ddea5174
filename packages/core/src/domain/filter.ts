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
  return true;
}
