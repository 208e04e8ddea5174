import type { PhaseChange } from '../types-structured.js';

/**
 * The phase of each session with its history (docs/structured.md). Every `set` appends a change; the current phase is the
 * change appended last (insertion order, not `at`). Every method is scoped by space.
 */
export interface PhaseStore {
  readonly name: string;
  set(space: string, change: PhaseChange): Promise<void>;
  current(space: string, sessionId: string): Promise<PhaseChange | null>;
  /** Changes oldest first; with `limit`, the newest `limit` changes, still oldest first. */
  history(space: string, sessionId: string, limit?: number): Promise<PhaseChange[]>;
  /**
   * Delete every session of the space whose id starts with `prefix` (matched literally: no character is a wildcard)
   * and return how many phase changes were removed. Other spaces are untouched. The guard refuses an empty prefix.
   */
  deleteSessions(space: string, prefix: string): Promise<number>;
}
