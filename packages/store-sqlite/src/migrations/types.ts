/** The shape of one SQLite schema step. */
import type { Database } from 'better-sqlite3';

/**
 * One schema step. Steps are applied in `version` order, each in its own BEGIN IMMEDIATE transaction,
 * and recorded in `schema_migrations`. A published step never changes: later ports add new steps.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
