import type { ToolEvent, ToolEventFilter } from '../types-structured.js';

/** The meaning of a ToolEventFilter as a predicate (SQL adapters mirror it). */
export function matchesToolEventFilter(e: ToolEvent, f: ToolEventFilter): boolean {
  if (f.sessionId !== undefined && e.sessionId !== f.sessionId) return false;
  if (f.tool !== undefined && e.tool !== f.tool) return false;
  if (f.since !== undefined && e.at < f.since) return false;
  if (f.until !== undefined && e.at >= f.until) return false;
  if (f.failed !== undefined && (e.error !== null) !== f.failed) return false;
  return true;
}
