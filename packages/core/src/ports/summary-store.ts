import type { SessionSummary, SummaryWrite } from '../types-structured.js';

/**
 * The running summary of each session (docs/structured.md): text, how many messages it covers, and a version that grows by
 * one on every save. Every method is scoped by space.
 * Errors: `CONFLICT` (retryable) when `expectedVersion` is given and does not match the stored version
 * (0 = no summary yet).
 */
export interface SummaryStore {
  readonly name: string;
  save(space: string, write: SummaryWrite, expectedVersion?: number): Promise<SessionSummary>;
  get(space: string, sessionId: string): Promise<SessionSummary | null>;
  delete(space: string, sessionId: string): Promise<boolean>;
  /**
   * Delete every session of the space whose id starts with `prefix` (matched literally: no character is a wildcard)
   * and return how many summaries were removed. Other spaces are untouched. The guard refuses an empty prefix.
   */
  deleteSessions(space: string, prefix: string): Promise<number>;
}
