/** The shapes of the PostgreSQL schema steps and of what `runMigrations` reports. */
import type { TransactionSql } from '../connection.js';

/** What a migration step gets besides the transaction: where to create things. */
export interface MigrationContext {
  /** The quoted schema that holds mem's tables, e.g. `"mem"`. */
  schema: string;
  /** The quoted schema of the pgvector extension (for qualified type and operator names); '' when not needed. */
  vectorSchema: string;
}

/**
 * One schema step of one port. Steps of a port are applied in `version` order inside one transaction per
 * `runMigrations` call, and recorded in `<schema>.schema_migrations` under (port, version).
 * A published step never changes: a port adds a new step instead.
 */
export interface Migration {
  version: number;
  name: string;
  /** True when the step needs the pgvector extension (it is created first when missing and allowed). */
  needsVector?: boolean;
  up(tx: TransactionSql, ctx: MigrationContext): Promise<void>;
}

/** The migration list of one port family (`knowledge`, `transcripts`, `notebooks`, `structured`, `episodic`). */
export interface PortMigrations {
  port: string;
  steps: readonly Migration[];
}

export interface MigrationResult {
  /** Steps applied by this call, in order (empty when the schema was already current). */
  applied: { port: string; version: number; name: string }[];
  /** Highest version recorded per port after the call. */
  current: Record<string, number>;
}
