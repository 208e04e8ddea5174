import type { JsonValue, SessionState } from '../types-structured.js';

/** A JSON state per session (docs/structured.md), replaced whole on `set`. Every method is scoped by space. */
export interface SessionStateStore {
  readonly name: string;
  get(space: string, sessionId: string): Promise<SessionState | null>;
  set(space: string, sessionId: string, state: JsonValue, at: string): Promise<void>;
  delete(space: string, sessionId: string): Promise<boolean>;
  /**
   * Delete every session of the space whose id starts with `prefix` (matched literally: no character is a wildcard)
   * and return how many session states were removed. Other spaces are untouched. The guard refuses an empty prefix.
   */
  deleteSessions(space: string, prefix: string): Promise<number>;
}
