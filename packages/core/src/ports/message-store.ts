import type { NewMessage, StoredMessage } from '../types-structured.js';

/**
 * Messages of a session (docs/structured.md). Every method is scoped by space. Messages keep insertion order: the order
 * in which `save` calls committed, whatever their `createdAt`.
 * Errors: `CONFLICT` when a message id is already stored in the space; `STORE_UNAVAILABLE` (prefixed by the
 * adapter name) for driver failures. Input is checked by the core (`guardMessageStore`), not here.
 */
export interface MessageStore {
  readonly name: string;
  /** Append one message to its session. */
  save(space: string, message: NewMessage): Promise<void>;
  /** The newest `limit` messages of the session, oldest first. */
  recent(space: string, sessionId: string, limit: number): Promise<StoredMessage[]>;
  count(space: string, sessionId: string): Promise<number>;
  /** Delete every message of the session except the newest `keepLast` (0 deletes them all). Returns how many went. */
  deleteBefore(space: string, sessionId: string, keepLast: number): Promise<number>;
}
