import type { JsonValue, SessionState } from '../types-structured.js';

/** A JSON state per session (docs/structured.md), replaced whole on `set`. Every method is scoped by space. */
export interface SessionStateStore {
  readonly name: string;
  get(space: string, sessionId: string): Promise<SessionState | null>;
  set(space: string, sessionId: string, state: JsonValue, at: string): Promise<void>;
  delete(space: string, sessionId: string): Promise<boolean>;
}
