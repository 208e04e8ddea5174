import type { ToolEvent, ToolEventFilter } from '../types-structured.js';

/**
 * A log of tool calls (docs/structured.md): tool, input, output, latency, error. Every method is scoped by space.
 * Order: by `at`, ties in insertion order. Errors: `CONFLICT` when an event id is already stored in the space.
 */
export interface ToolEventStore {
  readonly name: string;
  record(space: string, event: ToolEvent): Promise<void>;
  /** The newest `limit` events matching the filter, oldest first. */
  list(space: string, filter: ToolEventFilter, limit: number): Promise<ToolEvent[]>;
  count(space: string, filter: ToolEventFilter): Promise<number>;
  /**
   * Delete every session of the space whose id starts with `prefix` (matched literally: no character is a wildcard)
   * and return how many tool events (events without a session are never matched) were removed. Other spaces are untouched. The guard refuses an empty prefix.
   */
  deleteSessions(space: string, prefix: string): Promise<number>;
}
