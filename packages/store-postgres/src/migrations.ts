/**
 * Schema migrations of @mem/store-postgres: the steps of each port family live in migrations/ (knowledge,
 * conversation, structured); this file lists them in the order they apply and runs them, once per step, under an
 * advisory lock.
 */
import { MemError } from '@mem/core';
import { ADAPTER, quoteIdent, quoteSchema, type Sql, type TransactionSql } from './connection.js';
import { notebookMigrations, transcriptMigrations } from './migrations/conversation.js';
import { knowledgeMigrations } from './migrations/knowledge.js';
import { episodicMigrations, structuredMigrations } from './migrations/structured.js';
import type { MigrationResult, PortMigrations } from './migrations/types.js';

export { notebookMigrations, transcriptMigrations } from './migrations/conversation.js';
export { knowledgeMigrations } from './migrations/knowledge.js';
export { episodicMigrations, structuredMigrations } from './migrations/structured.js';
export type { Migration, MigrationContext, MigrationResult, PortMigrations } from './migrations/types.js';

/** `pg_advisory_xact_lock(MIGRATION_LOCK, hashtext(schema))` serialises schema changes of one schema. */
export const MIGRATION_LOCK = 0x6d656d31;
/** `pg_advisory_xact_lock(EXTENSION_LOCK, 0)` serialises CREATE EXTENSION across schemas of one database. */
const EXTENSION_LOCK = 0x6d656d32;

/** Every port's migrations this package ships, in the order they are applied. Later ports append here. */
export const migrations: readonly PortMigrations[] = [
  knowledgeMigrations,
  transcriptMigrations,
  notebookMigrations,
  structuredMigrations,
  episodicMigrations,
];

function checkSteps(ports: readonly PortMigrations[]): void {
  for (const { port, steps } of ports) {
    const seen = new Set<number>();
    for (const step of steps) {
      if (!Number.isSafeInteger(step.version) || step.version < 1) {
        throw new Error(`${ADAPTER}: migration ${port}/${step.name} has an invalid version ${step.version}`);
      }
      if (seen.has(step.version)) throw new Error(`${ADAPTER}: duplicate migration version ${port}/${step.version}`);
      seen.add(step.version);
    }
  }
}

/** Versions recorded in `<schema>.schema_migrations`, as `port/version` strings; empty when the table is missing. */
export async function appliedMigrations(sql: Sql | TransactionSql, schema: string): Promise<Map<string, number[]>> {
  const s = quoteSchema(schema);
  const out = new Map<string, number[]>();
  // A catalog scan, not to_regclass(): it reads with the statement's snapshot (and its lock processes pending
  // invalidations), so a table another process created while we waited for the migration lock is seen.
  const [table] = await sql.unsafe<{ t: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relname = 'schema_migrations') AS t`,
    [schema],
  );
  if (!table?.t) return out;
  const rows = await sql.unsafe<{ port: string; version: number }[]>(
    `SELECT port, version FROM ${s}.schema_migrations ORDER BY port, version`,
  );
  for (const row of rows) {
    const list = out.get(row.port) ?? [];
    list.push(row.version);
    out.set(row.port, list);
  }
  return out;
}

function pending(ports: readonly PortMigrations[], applied: Map<string, number[]>): number {
  let n = 0;
  for (const { port, steps } of ports) {
    const done = new Set(applied.get(port) ?? []);
    for (const step of steps) if (!done.has(step.version)) n++;
  }
  return n;
}

function currentOf(applied: Map<string, number[]>): Record<string, number> {
  const current: Record<string, number> = {};
  for (const [port, versions] of applied) current[port] = Math.max(0, ...versions);
  return current;
}

/**
 * Make sure pgvector is enabled in the database and return the quoted schema it lives in. When it is missing,
 * try `CREATE EXTENSION vector` (serialised across processes); when that is impossible, say what to do.
 */
export async function ensureVectorExtension(tx: TransactionSql, target: string): Promise<string> {
  const find = async () => {
    const [row] = await tx.unsafe<{ schema: string }[]>(
      `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
       WHERE e.extname = 'vector'`,
    );
    return row?.schema;
  };
  let schema = await find();
  if (schema !== undefined) return quoteIdent(schema);
  const [available] = await tx.unsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'`,
  );
  const [info] = await tx.unsafe<{ db: string; version: string }[]>(
    `SELECT current_database() AS db, current_setting('server_version_num') AS version`,
  );
  const major = Math.floor(Number(info?.version ?? 0) / 10000) || 'N';
  if (!available || available.n === 0) {
    throw new MemError(
      'STORE_UNAVAILABLE',
      `${ADAPTER}: the pgvector extension is not installed on the server at ${target}. Install pgvector for PostgreSQL ${major} on the server (e.g. the postgresql-${major}-pgvector package, or build it from source), then run \`CREATE EXTENSION vector;\` in database "${info?.db ?? ''}" or let mem create it with a role that may.`,
      { details: { target, missing: 'vector' } },
    );
  }
  await tx.unsafe('SELECT pg_advisory_xact_lock($1, 0)', [EXTENSION_LOCK]);
  schema = await find();
  if (schema !== undefined) return quoteIdent(schema);
  try {
    await tx.unsafe('SAVEPOINT mem_vector');
    await tx.unsafe('CREATE EXTENSION IF NOT EXISTS vector');
    await tx.unsafe('RELEASE SAVEPOINT mem_vector');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new MemError(
      'STORE_UNAVAILABLE',
      `${ADAPTER}: pgvector is installed on the server at ${target} but not enabled in database "${info?.db ?? ''}", and this role cannot enable it (${detail}). Ask an administrator to run \`CREATE EXTENSION vector;\` in that database.`,
      { cause: error, details: { target, missing: 'vector' } },
    );
  }
  schema = await find();
  if (schema === undefined)
    throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: CREATE EXTENSION vector had no effect.`);
  return quoteIdent(schema);
}

/**
 * Apply every step not yet recorded in `<schema>.schema_migrations` (created with the schema when missing).
 * All pending steps run in one transaction that first takes `pg_advisory_xact_lock(MIGRATION_LOCK,
 * hashtext(schema))` and re-reads the applied versions under it, so two processes starting at once apply each
 * step exactly once (the second waits, then finds nothing to do). A failing step rolls everything back.
 * A current schema costs two small reads and takes no lock.
 */
export async function runMigrations(
  sql: Sql,
  options: { schema?: string; ports?: readonly PortMigrations[]; target?: string } = {},
): Promise<MigrationResult> {
  const schema = options.schema ?? 'mem';
  const s = quoteSchema(schema);
  const ports = options.ports ?? migrations;
  const target = options.target ?? 'the server';
  checkSteps(ports);
  const before = await appliedMigrations(sql, schema);
  if (pending(ports, before) === 0) return { applied: [], current: currentOf(before) };
  return sql.begin(async (tx) => {
    // IF NOT EXISTS notices ("already exists, skipping") stay out of the caller's log.
    await tx.unsafe('SET LOCAL client_min_messages = warning');
    await tx.unsafe('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    const applied = await appliedMigrations(tx, schema);
    const todo = ports.flatMap(({ port, steps }) => {
      const have = new Set(applied.get(port) ?? []);
      return [...steps]
        .sort((a, b) => a.version - b.version)
        .filter((step) => !have.has(step.version))
        .map((step) => ({ port, step }));
    });
    // Prerequisites first, so a database without pgvector fails before anything is created.
    const vectorSchema = todo.some(({ step }) => step.needsVector) ? await ensureVectorExtension(tx, target) : '';
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
      port       text NOT NULL,
      version    integer NOT NULL,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (port, version)
    )`);
    const done: MigrationResult['applied'] = [];
    for (const { port, step } of todo) {
      await step.up(tx, { schema: s, vectorSchema });
      await tx.unsafe(`INSERT INTO ${s}.schema_migrations (port, version, name) VALUES ($1, $2, $3)`, [
        port,
        step.version,
        step.name,
      ]);
      done.push({ port, version: step.version, name: step.name });
      applied.set(port, [...(applied.get(port) ?? []), step.version]);
    }
    return { applied: done, current: currentOf(applied) };
  });
}
