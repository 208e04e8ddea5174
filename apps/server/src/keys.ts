/**
 * API keys bound to `{space, agentId, role}`. A key reads `mem_<id>_<secret>`: the id finds the row, scrypt
 * (node:crypto, a random salt per key) verifies the secret. Only the salt and the hash are stored, never the key.
 *
 * Where the rows live is a `KeyRows` backend: by default their own SQLite file (`<db>.keys.db` beside the store), so
 * credentials stay out of the memory database (its copies, backups and exports) and the schema steps never mix with
 * the store's migration sequence; with a PostgreSQL store, a table in that database (keys-postgres.ts), so that every
 * replica of the server sees the same keys and a revocation through one is refused by all at the next request.
 * The rules (key format, scrypt, cache, last-use) are here, once, for every backend.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { join, resolve } from 'node:path';
import { checkName, MemError, type Principal, type Role } from '@mem/core';
import { type Migration, openDatabase, runMigrations, withBusyRetry } from '@mem/store-sqlite';
import type { Database } from 'better-sqlite3';
import type { RateBuckets } from './rate-limit.js';
import { isPostgresUrl } from './settings.js';

const SCRYPT = { N: 16_384, r: 8, p: 1, keylen: 32 } as const;
const KEY_RE = /^mem_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface ApiKeyInfo {
  id: string;
  space: string;
  agentId: string;
  role: Role;
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface VerifiedKey {
  keyId: string;
  principal: Principal;
}

/** One stored key: what a backend keeps (salt and hash, never the key). */
export interface KeyRecord extends ApiKeyInfo {
  salt: Buffer;
  hash: Buffer;
}

/**
 * Where the key rows live (SQLite file or PostgreSQL table). Every method reads or writes the shared rows: nothing
 * is cached here, so a key revoked through another process or replica is seen at the next `get`.
 */
export interface KeyRows {
  /** Where the keys are, for messages (`/path/mem.db.keys.db`, `postgres://host/db (schema mem)`). */
  readonly where: string;
  insert(row: KeyRecord): Promise<void>;
  get(id: string): Promise<KeyRecord | null>;
  /** Newest first. */
  list(): Promise<KeyRecord[]>;
  /** Set `revokedAt` on an active key; false when no active key has this id. */
  revoke(id: string, at: string): Promise<boolean>;
  activeCount(): Promise<number>;
  touch(id: string, at: string): Promise<void>;
  close(): Promise<void>;
}

export interface KeyStoreOptions {
  /** How long a verified key skips scrypt (ms). Revocation is still seen at once (the row is read every time). */
  cacheTtlMs?: number;
  /** At most this many verified keys cached. */
  cacheSize?: number;
  now?: () => Date;
}

const keyMigrations: Migration[] = [
  {
    version: 1,
    name: 'api-keys',
    up(db) {
      db.exec(`
        CREATE TABLE api_keys (
          id           TEXT PRIMARY KEY,
          space        TEXT NOT NULL,
          agent_id     TEXT NOT NULL,
          role         TEXT NOT NULL CHECK (role IN ('lead', 'worker')),
          label        TEXT,
          salt         BLOB NOT NULL,
          hash         BLOB NOT NULL,
          created_at   TEXT NOT NULL,
          last_used_at TEXT,
          revoked_at   TEXT
        );
      `);
    },
  },
];

/** A key row as both databases store it (snake_case columns). */
export interface KeyRow {
  id: string;
  space: string;
  agent_id: string;
  role: Role;
  label: string | null;
  salt: Buffer;
  hash: Buffer;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function scrypt(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((ok, fail) =>
    scryptCb(secret, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (error, key) =>
      error ? fail(error) : ok(key),
    ),
  );
}

/** What an unknown or revoked id is checked against (random per process; never a real key's). */
const DUMMY = { salt: randomBytes(16), hash: randomBytes(SCRYPT.keylen) };

/** A stored row as a key record (the hashes copied into Buffers: PostgreSQL hands out Uint8Arrays). */
export const recordOf = (row: KeyRow): KeyRecord => ({
  id: row.id,
  space: row.space,
  agentId: row.agent_id,
  role: row.role,
  label: row.label,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
  salt: Buffer.from(row.salt),
  hash: Buffer.from(row.hash),
});

const infoOf = ({ salt: _salt, hash: _hash, ...info }: KeyRecord): ApiKeyInfo => info;

/** The key rows in a SQLite file (created 0600, see docs/safety.md). */
export function sqliteKeyRows(path: string): KeyRows {
  const db: Database = openDatabase(path);
  try {
    runMigrations(db, keyMigrations);
  } catch (error) {
    db.close();
    throw new MemError('STORE_UNAVAILABLE', `keys: cannot prepare ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let closed = false;
  return {
    where: path,
    async insert(r) {
      withBusyRetry(() =>
        db
          .prepare(
            'INSERT INTO api_keys (id, space, agent_id, role, label, salt, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(r.id, r.space, r.agentId, r.role, r.label, r.salt, r.hash, r.createdAt),
      );
    },
    async get(id) {
      const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
      return row ? recordOf(row) : null;
    },
    async list() {
      return (db.prepare('SELECT * FROM api_keys ORDER BY created_at DESC, id').all() as KeyRow[]).map(recordOf);
    },
    async revoke(id, at) {
      return (
        withBusyRetry(
          () =>
            db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes,
        ) > 0
      );
    },
    async activeCount() {
      return (db.prepare('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as { n: number }).n;
    },
    async touch(id, at) {
      db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/** Where the keys of a store live: `MEM_KEYS_DB`/`--keys-db`, else beside the database file. */
export function keysPathFor(options: { db: string; workspace: string; keysDb?: string | undefined }): string {
  if (options.keysDb) return options.keysDb;
  if (options.db === ':memory:') return ':memory:';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(options.db)) return join(resolve(options.workspace), 'keys.db');
  return `${resolve(options.db)}.keys.db`;
}

/** The keys of a server and, on PostgreSQL, the rate buckets its replicas share. */
export interface ServerState {
  keys: KeyStore;
  /** Shared rate buckets (PostgreSQL); null: each process keeps its own. */
  rateBuckets: RateBuckets | null;
  /**
   * Register as one replica of the server on the shared database (PostgreSQL; elsewhere a no-op). `markdown` is
   * the Markdown workspace this process keeps transcripts in, or null: `CONFLICT` when that would split them.
   */
  joinReplicas(markdown: string | null): Promise<{ leave(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Open where a server keeps its keys: `--keys-db`/`MEM_KEYS_DB` when given (a SQLite file); the PostgreSQL
 * database when the store is one (`db` is a `postgres://` URL: keys and rate buckets shared by every replica);
 * else the SQLite file `keysPathFor` names.
 */
export async function openServerState(
  options: { db: string; workspace: string; keysDb?: string | undefined; schema?: string | undefined },
  keyOptions: KeyStoreOptions = {},
): Promise<ServerState> {
  if (!options.keysDb && isPostgresUrl(options.db)) {
    const { openPostgresServerState } = await import('./keys-postgres.js');
    const pg = await openPostgresServerState({
      url: options.db,
      ...(options.schema ? { schema: options.schema } : {}),
    });
    const keys = new KeyStore(pg.keys, keyOptions);
    return {
      keys,
      rateBuckets: pg.rateBuckets,
      joinReplicas: (markdown) => pg.joinReplicas(markdown),
      close: async () => {
        await keys.close();
        await pg.rateBuckets.close();
      },
    };
  }
  const keys = KeyStore.open(keysPathFor(options), keyOptions);
  return {
    keys,
    rateBuckets: null,
    joinReplicas: async () => ({ leave: async () => {} }),
    close: () => keys.close(),
  };
}

export class KeyStore {
  private readonly cache = new Map<string, { keyId: string; until: number }>();
  private readonly lastTouched = new Map<string, number>();
  private readonly ttl: number;
  private readonly cacheSize: number;
  private readonly now: () => Date;
  private closed = false;

  constructor(
    private readonly rows: KeyRows,
    options: KeyStoreOptions = {},
  ) {
    this.ttl = options.cacheTtlMs ?? 5 * 60_000;
    this.cacheSize = options.cacheSize ?? 10_000;
    this.now = options.now ?? (() => new Date());
  }

  /** Open (creating when needed) the keys SQLite file at `path` (`:memory:` for a throw-away one). */
  static open(path: string, options: KeyStoreOptions = {}): KeyStore {
    return new KeyStore(sqliteKeyRows(path), options);
  }

  /** Where the keys live, for messages. */
  get where(): string {
    return this.rows.where;
  }

  /** Create a key. The returned `key` is the only time the secret exists outside the caller. */
  async create(input: { space: string; agentId: string; role: Role; label?: string | undefined }): Promise<{
    key: string;
    info: ApiKeyInfo;
  }> {
    checkName(input.space, 'space');
    checkName(input.agentId, 'agent');
    if (input.role !== 'lead' && input.role !== 'worker')
      throw new MemError('INVALID_INPUT', `Invalid role "${String(input.role)}": use "lead" or "worker".`);
    if (input.label !== undefined && input.label.length > 200)
      throw new MemError('INVALID_INPUT', 'A key label has at most 200 characters.');
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const salt = randomBytes(16);
    const hash = await scrypt(secret, salt);
    const info: ApiKeyInfo = {
      id,
      space: input.space,
      agentId: input.agentId,
      role: input.role,
      label: input.label ?? null,
      createdAt: this.now().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.rows.insert({ ...info, salt, hash });
    return { key: `mem_${id}_${secret}`, info };
  }

  /** Every key, newest first, without secrets. */
  async list(): Promise<ApiKeyInfo[]> {
    return (await this.rows.list()).map(infoOf);
  }

  /** Revoke a key: every later request with it is refused. False when no such active key exists. */
  async revoke(id: string): Promise<boolean> {
    const changed = await this.rows.revoke(id, this.now().toISOString());
    for (const [k, v] of this.cache) if (v.keyId === id) this.cache.delete(k);
    return changed;
  }

  /**
   * The key id of a well-formed token (null otherwise), without any check: what the server counts failed
   * checks against.
   */
  static idOf(token: string): string | null {
    return KEY_RE.exec(token)?.[1] ?? null;
  }

  /** True when this exact token was verified within the cache period (no scrypt needed to accept it again). */
  isCached(token: string): boolean {
    const cached = this.cache.get(createHash('sha256').update(token).digest('base64url'));
    return cached !== undefined && cached.until > Date.now();
  }

  /** How many keys are not revoked. */
  activeCount(): Promise<number> {
    return this.rows.activeCount();
  }

  /**
   * The principal of a bearer token, or null for an unknown, malformed, wrong or revoked key. scrypt runs once
   * per key per cache period; the row is read on every call, so a revocation (from any process or replica) counts
   * at once.
   */
  async verify(token: string): Promise<VerifiedKey | null> {
    if (this.closed) throw new MemError('STORE_UNAVAILABLE', 'keys: the key store is closed.');
    const m = KEY_RE.exec(token);
    if (!m) return null;
    const id = m[1]!;
    const row = await this.rows.get(id);
    if (!row || row.revokedAt !== null) {
      // The same scrypt as for a known id, against a hash no secret matches: the answer takes as long whether the
      // id exists or not, so timing does not tell which ids exist.
      const dummy = await scrypt(m[2]!, DUMMY.salt);
      timingSafeEqual(dummy, DUMMY.hash);
      return null;
    }
    const fingerprint = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const cached = this.cache.get(fingerprint);
    if (!cached || cached.until <= now || cached.keyId !== id) {
      const hash = await scrypt(m[2]!, row.salt);
      if (hash.length !== row.hash.length || !timingSafeEqual(hash, row.hash)) return null;
      if (this.cache.size >= this.cacheSize) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
      this.cache.set(fingerprint, { keyId: id, until: now + this.ttl });
    }
    this.touch(id, now);
    return { keyId: id, principal: { space: row.space, agentId: row.agentId, role: row.role } };
  }

  /** Record last use at most once a minute per key (a write per request would serialise every reader). */
  private touch(id: string, now: number): void {
    const last = this.lastTouched.get(id) ?? 0;
    if (now - last < 60_000) return;
    this.lastTouched.set(id, now);
    // Best effort: a busy database must not fail the request.
    this.rows.touch(id, this.now().toISOString()).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.rows.close();
  }
}
