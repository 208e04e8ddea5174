/**
 * What every PostgreSQL port of this package shares besides SQL: one connection (a postgres.js pool, created from a
 * URL or handed in), the migration check per port family, the mapping of driver errors to MemError, and the
 * "closed" state. The knowledge store predates this module and keeps its own copy of the same rules.
 */
import { MemError } from '@mem/core';
import type { Eraser } from '@mem/core/adapter';
import {
  ADAPTER,
  type ClientOptions,
  constraintOf,
  createClient,
  describeTarget,
  exec,
  quoteIdent,
  quoteSchema,
  type Sql,
  sqlState,
  toStoreError,
} from './connection.js';
import { postgresEraser } from './erase.js';
import { appliedMigrations, type MigrationResult, type PortMigrations, runMigrations } from './migrations.js';

/** Options every PostgreSQL port factory takes. */
export interface PostgresPortOptions extends ClientOptions {
  /** Connection URL, `postgres://user:password@host:5432/database`. Give this or `sql`. */
  url?: string;
  /** An existing postgres.js client to share (it stays open when the store closes). Give this or `url`. */
  sql?: Sql;
  /** Schema that holds mem's tables (created when missing). Default `mem`. */
  schema?: string;
  /** Apply pending schema migrations on open. Default true; when false call `migrate()` yourself. */
  autoMigrate?: boolean;
}

/** What a store built on a runtime exposes besides its port (all PostgreSQL stores of this package have it). */
export interface PostgresHandle {
  /** Apply pending migrations of this store's port families (idempotent; safe when several processes start at once). */
  migrate(): Promise<MigrationResult>;
  /** The postgres.js client (shared with the other ports of a `createPostgresStores` bundle). */
  readonly sql: Sql;
  /** The schema holding the tables (unquoted). */
  readonly schema: string;
  /**
   * Erases deleted rows from the server's files (`forget`): VACUUM FULL of the schema's tables, a WAL switch and a
   * checkpoint, with notes for what the role may not do (see erase.ts). One target per database and schema.
   */
  readonly eraser?: Eraser | undefined;
  /** Idempotent. Ends the client only when this store created it from `url`. */
  close(): Promise<void>;
}

/**
 * An error raised by caller code running inside a store method (a compaction step hook, a `withLock` body). It
 * reaches the caller as it was thrown, never wrapped as a driver failure.
 */
export class Passthrough {
  constructor(readonly error: unknown) {}
}

/** Run caller code; whatever it throws travels as a `Passthrough`. */
export async function callerCode<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw error instanceof Passthrough ? error : new Passthrough(error);
  }
}

/** A client plus where it points. `end()` closes it only when it was created here. */
export interface Connection {
  readonly sql: Sql;
  /** Unquoted schema name. */
  readonly schema: string;
  /** Quoted schema name for SQL text. */
  readonly s: string;
  /** `host:port/database`, for messages. */
  readonly target: string;
  readonly owned: boolean;
  readonly ended: boolean;
  end(): Promise<void>;
}

export function openConnection(options: PostgresPortOptions): Connection {
  if ((options.url === undefined) === (options.sql === undefined)) {
    throw new MemError(
      'INVALID_INPUT',
      `${ADAPTER}: give exactly one of \`url\` (a connection URL) or \`sql\` (an existing postgres.js client).`,
    );
  }
  const schema = options.schema ?? 'mem';
  const s = quoteSchema(schema);
  const owned = options.sql === undefined;
  const sql = options.sql ?? createClient(options.url as string, options);
  const target = describeTarget(sql, options.url);
  let ended = false;
  return {
    sql,
    schema,
    s,
    target,
    owned,
    get ended() {
      return ended;
    },
    async end() {
      if (ended) return;
      ended = true;
      if (!owned) return;
      try {
        await sql.end({ timeout: 5 });
      } catch (error) {
        throw toStoreError(error, 'close', target);
      }
    },
  };
}

/** One store's view of a connection: its port families, its readiness and its own closed state. */
export interface PortRuntime {
  readonly conn: Connection;
  readonly sql: Sql;
  readonly schema: string;
  readonly s: string;
  readonly target: string;
  /** Quoted schema of the pgvector extension ('' for families that do not need it). Valid once ready. */
  vectorSchema(): string;
  /** The pgvector version ('' for families that do not need it). Valid once ready. */
  vectorVersion(): string;
  /** Check the store is open and migrated, run `fn`, map what it throws to a MemError. */
  run<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** Errors of `fn` mapped as `run` does, without the readiness check (for handles inside a transaction). */
  guard<T>(what: string, fn: () => Promise<T>): Promise<T>;
  ready(): Promise<void>;
  migrate(): Promise<MigrationResult>;
  close(): Promise<void>;
}

/** Map an error as `run` does: caller errors as they were, MemErrors unchanged, driver errors with advice. */
export function mapError(error: unknown, what: string, target: string): unknown {
  if (error instanceof Passthrough) return error.error;
  return toStoreError(error, what, target);
}

export function createRuntime(
  conn: Connection,
  families: readonly PortMigrations[],
  label: string,
  ownsConnection: boolean,
): PortRuntime {
  const { sql, schema, s, target } = conn;
  const needsVector = families.some((f) => f.steps.some((step) => step.needsVector));
  let closed = false;
  let vectorSchema = '';
  let vectorVersion = '';
  let readyPromise: Promise<void> | undefined;

  const closedError = () =>
    new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the ${label} for ${target} is closed; create a new one.`);

  async function init(): Promise<void> {
    const applied = await appliedMigrations(sql, schema);
    for (const family of families) {
      const need = Math.max(0, ...family.steps.map((step) => step.version));
      const have = Math.max(0, ...(applied.get(family.port) ?? []));
      if (have < need) {
        throw new MemError(
          'STORE_UNAVAILABLE',
          `${ADAPTER}: schema ${schema} on ${target} has ${family.port} schema version ${have}; the ${label} ${label.endsWith('stores') ? 'need' : 'needs'} version ${need}. Call migrate() (or open it with autoMigrate: true).`,
        );
      }
    }
    if (needsVector) {
      const [ext] = await exec<{ schema: string; version: string }[]>(
        sql,
        `SELECT n.nspname AS schema, e.extversion AS version FROM pg_extension e
         JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
      );
      if (!ext) {
        throw new MemError(
          'STORE_UNAVAILABLE',
          `${ADAPTER}: the pgvector extension is not enabled in the database at ${target}. Run \`CREATE EXTENSION vector;\` there.`,
        );
      }
      vectorSchema = quoteIdent(ext.schema);
      vectorVersion = ext.version;
    }
  }

  function ready(): Promise<void> {
    if (closed || conn.ended) return Promise.reject(closedError());
    if (readyPromise === undefined) {
      readyPromise = init().catch((error: unknown) => {
        readyPromise = undefined;
        throw error;
      });
    }
    return readyPromise;
  }

  return {
    conn,
    sql,
    schema,
    s,
    target,
    vectorSchema: () => vectorSchema,
    vectorVersion: () => vectorVersion,
    ready,
    async run(what, fn) {
      try {
        await ready();
        return await fn();
      } catch (error) {
        throw mapError(error, what, target);
      }
    },
    async guard(what, fn) {
      try {
        return await fn();
      } catch (error) {
        throw mapError(error, what, target);
      }
    },
    async migrate() {
      if (closed || conn.ended) throw closedError();
      try {
        const result = await runMigrations(sql, { schema, ports: families, target });
        readyPromise = undefined;
        return result;
      } catch (error) {
        throw toStoreError(error, 'migrating', target);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsConnection) await conn.end();
    },
  };
}

/**
 * Open a store's runtime: connect (one round trip, so a wrong URL or a server that is down fails here) and, unless
 * `autoMigrate: false`, apply the families' pending migrations and check readiness.
 */
export async function openRuntime(
  options: PostgresPortOptions,
  families: readonly PortMigrations[],
  label: string,
): Promise<PortRuntime> {
  const conn = openConnection(options);
  const rt = createRuntime(conn, families, label, conn.owned);
  try {
    await exec(conn.sql, 'SELECT 1');
    if (options.autoMigrate ?? true) {
      await runMigrations(conn.sql, { schema: conn.schema, ports: families, target: conn.target });
      await rt.ready();
    }
  } catch (error) {
    if (conn.owned) await conn.sql.end({ timeout: 1 }).catch(() => undefined);
    throw toStoreError(error, 'opening the store', conn.target);
  }
  return rt;
}

/** The handle part of a store (`migrate`, `sql`, `schema`, `close`) over a runtime. */
export function handleOf(rt: PortRuntime): PostgresHandle {
  return {
    migrate: () => rt.migrate(),
    get sql() {
      return rt.sql;
    },
    get schema() {
      return rt.schema;
    },
    eraser: postgresEraser(rt.sql, rt.schema, rt.target),
    close: () => rt.close(),
  };
}

/** True for a unique violation, of `constraint` when given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  return sqlState(error) === '23505' && (constraint === undefined || constraintOf(error) === constraint);
}

/** `CONFLICT` for an id that is already stored in the space. */
export function duplicateId(what: string, id: string, cause: unknown): MemError {
  return new MemError('CONFLICT', `${ADAPTER}: ${what} id "${id}" already exists in this space. Use a new id.`, {
    cause,
    details: { id },
  });
}

/**
 * A SQL `LIMIT` parameter for a row count: null (no limit) for undefined or +Infinity, 0 when nothing is wanted
 * (0, negative, NaN; callers return [] without a query), else the integer part.
 */
export function rowLimit(limit: number | undefined): number | null {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return null;
  const n = Math.floor(limit);
  return n > 0 ? n : 0;
}

/**
 * FIFO sections per key: calls made on one store instance for one key (a transcript, a session) run one after the
 * other, in call order, even when the caller does not await each one. A pool would otherwise send them on several
 * connections at once, and they could commit in another order than they were made.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/** A key for `KeyedQueue` and advisory locks from parts that may contain any character. */
export function compositeKey(...parts: string[]): string {
  return parts.map((p) => `${p.length}:${p}`).join('|');
}
