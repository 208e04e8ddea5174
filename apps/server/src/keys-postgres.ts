/**
 * API keys and rate-limit buckets in PostgreSQL, for replicas of the server on one database (docs/http-api.md,
 * "Replicas"). Built on @mem/store-postgres's client and migration runner (loaded only when the store is PostgreSQL;
 * the package is an optional peer, as in the CLI). It lives in the server, not in @mem/store-postgres: keys and
 * rate limits are the server's rules, not a port of @mem/core, and an adapter must not know the server. The tables
 * sit in the store's schema (`mem` by default) under their own migration family, `server`.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { MemError } from '@mem/core';
import type { Sql } from '@mem/store-postgres';
import { type KeyRow, type KeyRows, recordOf } from './keys.js';
import type { RateBuckets, RateDecision } from './rate-limit.js';

type StorePostgres = typeof import('@mem/store-postgres');

async function loadStorePostgres(): Promise<StorePostgres> {
  try {
    return await import('@mem/store-postgres');
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND')
      throw new MemError(
        'CAPABILITY_MISSING',
        'Keys in PostgreSQL need the @mem/store-postgres package: install it next to mem (npm install @mem/store-postgres).',
      );
    throw e;
  }
}

const serverMigrations = {
  port: 'server',
  steps: [
    {
      version: 1,
      name: 'api-keys-rate-buckets-replicas',
      async up(tx: import('@mem/store-postgres').TransactionSql, ctx: { schema: string }) {
        await tx.unsafe(`CREATE TABLE ${ctx.schema}.api_keys (
          id           text PRIMARY KEY,
          space        text NOT NULL,
          agent_id     text NOT NULL,
          role         text NOT NULL CHECK (role IN ('lead', 'worker')),
          label        text,
          salt         bytea NOT NULL,
          hash         bytea NOT NULL,
          created_at   text NOT NULL,
          last_used_at text,
          revoked_at   text
        )`);
        await tx.unsafe(`CREATE TABLE ${ctx.schema}.rate_buckets (
          caller  text PRIMARY KEY,
          tokens  double precision NOT NULL,
          at      timestamptz NOT NULL,
          granted boolean NOT NULL
        )`);
        await tx.unsafe(`CREATE TABLE ${ctx.schema}.server_replicas (
          id       text PRIMARY KEY,
          host     text NOT NULL,
          pid      integer NOT NULL,
          markdown text,
          seen_at  timestamptz NOT NULL
        )`);
      },
    },
  ],
};

/** A replica's lease on the shared database: refreshed while it runs, removed when it stops. */
export interface ReplicaLease {
  leave(): Promise<void>;
}

/** A lease is live while refreshed within this long (a replica that died stops counting after it). */
export const REPLICA_LEASE_MS = 15_000;

export interface PostgresServerState {
  keys: KeyRows;
  rateBuckets: RateBuckets;
  /**
   * Register this process as a replica of the server. `markdown` is the Markdown workspace it keeps transcripts and
   * notebooks in (null: the shared store). A replica with a Markdown workspace must be the only one: `CONFLICT`
   * when another live replica exists, or when a live replica already uses a Markdown workspace.
   */
  joinReplicas(markdown: string | null): Promise<ReplicaLease>;
  /** Ends the connection pool (once both users are done with it). */
  close(): Promise<void>;
}

/**
 * Open the server's shared state in PostgreSQL: key rows and rate buckets, on one small pool. Migrations run once
 * (several replicas starting at once apply them exactly once: store-postgres's advisory lock).
 */
export async function openPostgresServerState(options: { url: string; schema?: string }): Promise<PostgresServerState> {
  const pg = await loadStorePostgres();
  const schema = options.schema ?? 'mem';
  const s = pg.quoteSchema(schema);
  const where = `${pg.redactUrl(options.url)} (schema ${schema})`;
  const sql: Sql = pg.createClient(options.url, { max: 4 });
  const run = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (MemError.is(error)) throw error;
      throw pg.toStoreError(error, `keys: ${what}`, where);
    }
  };
  try {
    await run('migrate', () => pg.runMigrations(sql, { schema, ports: [serverMigrations as never] }));
  } catch (error) {
    await sql.end({ timeout: 5 }).catch(() => {});
    throw error;
  }
  let users = 2;
  const release = async () => {
    if (--users === 0) await sql.end({ timeout: 5 });
  };
  const keys: KeyRows = {
    where,
    insert: (r) =>
      run('create', async () => {
        await sql.unsafe(
          `INSERT INTO ${s}.api_keys (id, space, agent_id, role, label, salt, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [r.id, r.space, r.agentId, r.role, r.label, r.salt, r.hash, r.createdAt],
        );
      }),
    get: (id) =>
      run('read', async () => {
        const rows = (await sql.unsafe(`SELECT * FROM ${s}.api_keys WHERE id = $1`, [id])) as unknown as KeyRow[];
        return rows[0] ? recordOf(rows[0]) : null;
      }),
    list: () =>
      run('list', async () =>
        ((await sql.unsafe(`SELECT * FROM ${s}.api_keys ORDER BY created_at DESC, id`)) as unknown as KeyRow[]).map(
          recordOf,
        ),
      ),
    revoke: (id, at) =>
      run('revoke', async () => {
        const rows = await sql.unsafe(
          `UPDATE ${s}.api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id`,
          [at, id],
        );
        return rows.length > 0;
      }),
    activeCount: () =>
      run('count', async () => {
        const rows = await sql.unsafe(`SELECT count(*)::int AS n FROM ${s}.api_keys WHERE revoked_at IS NULL`);
        return Number((rows[0] as unknown as { n: number }).n);
      }),
    touch: (id, at) =>
      run('touch', async () => {
        await sql.unsafe(`UPDATE ${s}.api_keys SET last_used_at = $1 WHERE id = $2`, [at, id]);
      }),
    close: release,
  };
  const rateBuckets: RateBuckets = {
    take: (caller, rate, burst, cost = 1): Promise<RateDecision> =>
      run('rate limit', async () => {
        // One statement: refill by the time passed (the database's clock, the same for every replica), then take a
        // `cost` tokens when they are there. Concurrent requests on any replica serialise on the row.
        const refill = 'LEAST($3::float8, b.tokens + EXTRACT(EPOCH FROM now() - b.at)::float8 * $2::float8)';
        const rows = await sql.unsafe(
          `INSERT INTO ${s}.rate_buckets AS b (caller, tokens, at, granted) VALUES ($1, $3::float8 - $4::float8, now(), true)
           ON CONFLICT (caller) DO UPDATE SET
             tokens = CASE WHEN ${refill} >= $4::float8 THEN ${refill} - $4::float8 ELSE ${refill} END,
             at = now(),
             granted = ${refill} >= $4::float8
           RETURNING b.tokens, b.granted`,
          [caller, rate, burst, cost],
        );
        const row = rows[0] as unknown as { tokens: number; granted: boolean };
        const tokens = Number(row.tokens);
        return row.granted
          ? { ok: true, retryAfterSeconds: 0, remaining: Math.floor(tokens) }
          : {
              ok: false,
              retryAfterSeconds: Math.max(1, Math.ceil((Math.min(cost, burst) - tokens) / rate)),
              remaining: Math.floor(tokens),
            };
      }),
    close: release,
  };
  const joinReplicas = async (markdown: string | null): Promise<ReplicaLease> => {
    users++;
    const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const ttl = `${REPLICA_LEASE_MS / 1000} seconds`;
    try {
      await run('join replicas', () =>
        sql.begin(async (tx) => {
          await tx.unsafe('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.server_replicas`]);
          await tx.unsafe(`DELETE FROM ${s}.server_replicas WHERE seen_at < now() - interval '${ttl}'`);
          const others = (await tx.unsafe(`SELECT host, pid, markdown FROM ${s}.server_replicas`)) as unknown as {
            host: string;
            pid: number;
            markdown: string | null;
          }[];
          const md = others.find((o) => o.markdown !== null);
          if (md)
            throw new MemError(
              'CONFLICT',
              `Another mem serve (pid ${md.pid} on ${md.host}) on this database keeps transcripts and notebooks in a Markdown workspace (${md.markdown}), which only one server can use. Run every replica with --transcripts store (the default with --store postgres), then start this one.`,
            );
          if (markdown !== null && others.length > 0)
            throw new MemError(
              'CONFLICT',
              `${others.length} other mem serve replica(s) run on this database (${others.map((o) => `pid ${o.pid} on ${o.host}`).join(', ')}): a Markdown workspace (${markdown}) would give each replica its own transcripts and notebooks. Use --transcripts store (the default with --store postgres) so every replica shares them.`,
            );
          await tx.unsafe(
            `INSERT INTO ${s}.server_replicas (id, host, pid, markdown, seen_at) VALUES ($1, $2, $3, $4, now())`,
            [id, hostname(), process.pid, markdown],
          );
        }),
      );
    } catch (error) {
      await release();
      throw error;
    }
    const beat = setInterval(() => {
      sql.unsafe(`UPDATE ${s}.server_replicas SET seen_at = now() WHERE id = $1`, [id]).catch(() => {});
    }, REPLICA_LEASE_MS / 3);
    beat.unref();
    let left = false;
    return {
      async leave() {
        if (left) return;
        left = true;
        clearInterval(beat);
        await sql.unsafe(`DELETE FROM ${s}.server_replicas WHERE id = $1`, [id]).catch(() => {});
        await release();
      },
    };
  };
  return {
    keys,
    rateBuckets,
    joinReplicas,
    close: async () => Promise.all([keys.close(), rateBuckets.close()]).then(() => {}),
  };
}
