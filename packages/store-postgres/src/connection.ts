import { MemError } from '@mem/core';
import { wrapStoreError } from '@mem/core/adapter';
import postgres from 'postgres';

export const ADAPTER = 'postgres';

/** A postgres.js client (a pool), as created by `postgres(url)`. */
export type Sql = postgres.Sql;
/** The client inside `sql.begin(...)`. */
export type TransactionSql = postgres.TransactionSql;

/** Parameters of `sql.unsafe`: the values postgres.js can serialise. */
export type SqlParams = postgres.ParameterOrJSON<never>[];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Check a schema name (letters, digits, underscore; at most 63) and return it double-quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) {
    throw new MemError(
      'INVALID_INPUT',
      `${ADAPTER}: schema "${schema}" is not a plain identifier. Use letters, digits and underscores (at most 63, not starting with a digit), e.g. "mem".`,
    );
  }
  return `"${schema}"`;
}

/** Quote any identifier read from the catalog (embedded quotes doubled). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Numbered placeholders for `sql.unsafe`: `p.add(value)` returns `$n`. */
export class Params {
  readonly values: SqlParams;

  /** `before`: parameters already bound as $1…$n (a compiled filter's), which the new ones follow. */
  constructor(before: SqlParams = []) {
    this.values = [...before];
  }

  add(value: string | number | boolean | null | readonly string[]): string {
    this.values.push(value as postgres.ParameterOrJSON<never>);
    return `$${this.values.length}`;
  }
}

/**
 * Run one statement. With parameters it is a named prepared statement (postgres.js caches it per connection:
 * one round trip from the second call on, where an unnamed statement needs two); without, the simple protocol.
 * A client created with `prepare: false` (e.g. behind a transaction-pooling proxy) keeps unnamed statements.
 */
export function exec<T extends readonly unknown[] = postgres.Row[]>(
  db: Sql | TransactionSql,
  text: string,
  params: SqlParams = [],
): postgres.PendingQuery<T extends postgres.Row[] ? T : never> {
  return db.unsafe(text, params, params.length > 0 ? { prepare: true } : {}) as never;
}

/** Where a client points, for messages: `host:port/database` (never the password). */
export function describeTarget(sql: Sql | undefined, url?: string): string {
  if (url !== undefined) {
    try {
      const u = new URL(url);
      const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default database)';
      return `${u.hostname || 'localhost'}:${u.port || '5432'}/${db}`;
    } catch {
      return 'the configured server';
    }
  }
  const o = (sql as unknown as { options?: { host?: string[]; port?: number[]; database?: string } } | undefined)
    ?.options;
  if (!o) return 'the configured server';
  return `${o.host?.[0] ?? 'localhost'}:${o.port?.[0] ?? 5432}/${o.database ?? ''}`;
}

/** Replace the password of a connection URL by `***` (for messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'ENOENT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

function codeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // Node reports a host with several addresses (localhost → ::1 and 127.0.0.1) as an AggregateError.
    const inner = (error as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) return codeOf(inner[0]);
  }
  return '';
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'object' && error !== null) {
    const inner = (error as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) return messageOf(inner[0]);
  }
  return String(error);
}

/** The SQLSTATE of a server error, or '' for anything else. */
export function sqlState(error: unknown): string {
  if (typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'PostgresError') {
    return codeOf(error);
  }
  return '';
}

/** The constraint a server error names (unique violations), or ''. */
export function constraintOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const name = (error as { constraint_name?: unknown }).constraint_name;
  return typeof name === 'string' ? name : '';
}

/**
 * Turn a driver error into a MemError with a message that says what to do. Unreachable servers, unknown
 * databases and refused logins get their own wording; anything else is `postgres: <what> failed: <detail>`.
 */
export function toStoreError(error: unknown, what: string, target: string): MemError {
  if (MemError.is(error)) return error;
  const code = codeOf(error);
  const detail = messageOf(error);
  if (NETWORK_CODES.has(code)) {
    return new MemError(
      'STORE_UNAVAILABLE',
      `${ADAPTER}: cannot reach the PostgreSQL server at ${target} (${code}) during ${what}. Check that the server is running and accepts connections there, and that the connection URL is right.`,
      { cause: error, retryable: true, details: { target, code } },
    );
  }
  switch (sqlState(error)) {
    case '3D000':
      return new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: ${detail} (server ${target}). Create the database (e.g. \`createdb\`) or fix the database name in the connection URL.`,
        { cause: error, details: { target, sqlState: '3D000' } },
      );
    case '28P01':
    case '28000':
      return new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: the server at ${target} refused the login (${detail}). Check the user and password in the connection URL.`,
        { cause: error, details: { target, sqlState: sqlState(error) } },
      );
    case '57P01':
    case '57P02':
    case '57P03':
    case '53300':
      return new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: the server at ${target} cannot serve ${what} right now (${detail}). Retry shortly.`,
        { cause: error, retryable: true, details: { target, sqlState: sqlState(error) } },
      );
    case '22021':
    case '22P05':
      return new MemError(
        'INVALID_INPUT',
        `${ADAPTER}: ${what} failed: PostgreSQL text cannot hold this character (${detail}). Remove NUL (U+0000) characters from the input.`,
        { cause: error },
      );
    case '22007':
    case '22008':
      return new MemError(
        'INVALID_INPUT',
        `${ADAPTER}: ${what} failed: PostgreSQL cannot read a time given (${detail}). Use ISO-8601 UTC times, e.g. 2026-03-01T12:00:00.000Z.`,
        { cause: error },
      );
    default:
      return wrapStoreError(ADAPTER, error, what);
  }
}

export interface ClientOptions {
  /** Largest number of pooled connections. Default 10. */
  max?: number;
  /** Seconds to wait for a connection. Default 10. */
  connectTimeoutSeconds?: number;
}

/** A postgres.js pool for mem (notices silenced; prepared statements cached per connection). */
export function createClient(url: string, options: ClientOptions = {}): Sql {
  try {
    return postgres(url, {
      max: options.max ?? 10,
      connect_timeout: options.connectTimeoutSeconds ?? 10,
      onnotice: () => {},
    });
  } catch (error) {
    throw new MemError(
      'STORE_UNAVAILABLE',
      `${ADAPTER}: "${redactUrl(url)}" is not a usable connection URL (${messageOf(error)}). Use postgres://user:password@host:5432/database.`,
      { cause: error },
    );
  }
}
