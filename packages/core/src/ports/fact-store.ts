import type { Fact, FactUpsertResult, FactWrite } from '../types-structured.js';

/**
 * Facts about users (docs/structured.md): one value per (space, user, topic, key), `topic` null for a global fact.
 * Every method is scoped by space.
 *
 * Source priority is decided by `factPriority` of @mem/core/adapter (user > ai_inferred > mcp > other):
 * `upsert` replaces a stored fact only when the new source's priority is at least the stored one's, and does so
 * atomically (a SQL adapter stores the priority in a column and makes the conflict update conditional on it).
 * `get` merges global and topic facts with `mergeFacts` of @mem/core/adapter (the topic fact wins per key).
 * Input (names, JSON values, secrets) is checked by the core (`guardFactStore`), not here.
 */
export interface FactStore {
  readonly name: string;
  upsert(space: string, write: FactWrite): Promise<FactUpsertResult>;
  /**
   * The user's global facts; with a topic, the global facts merged with that topic's facts (topic wins per key).
   * Ordered by key.
   */
  get(space: string, user: string, topic?: string | null): Promise<Fact[]>;
  /** One fact in exactly the given scope (no merging), or null. */
  find(space: string, user: string, key: string, topic: string | null): Promise<Fact | null>;
  delete(space: string, user: string, key: string, topic: string | null): Promise<boolean>;
  /** Delete every fact of a user (all topics). Returns how many went. */
  deleteUser(space: string, user: string): Promise<number>;
}
