/**
 * The TranscriptStore port (docs/conversations.md) on PostgreSQL: a header row per (space, agent) with the next sequence number,
 * one row per message, and archives as frozen copies. Every statement is filtered by space and agent.
 *
 * Locking: every transcript has an advisory lock, `hashtextextended(<schema, space, agent>)`. `compact`, `remove` and
 * `withLock` take it exclusively at the start of their transaction (`pg_advisory_xact_lock`); `append` takes it
 * shared inside its one statement (`pg_advisory_xact_lock_shared`), so appends run side by side, wait while a
 * compaction or a `withLock` body holds the transcript, and a compaction waits for appends in flight. An advisory
 * lock rather than a row lock (`SELECT … FOR UPDATE` on the header) because `withLock` must be exclusive also for
 * an agent that has no transcript yet (there is no row to lock), and because it holds no row lock that a plain read
 * could trip over. Transaction-scoped advisory locks are released by COMMIT or ROLLBACK, and by the server when the
 * holder's connection or process dies, so a crash never leaves a transcript locked.
 */
import { MemError, type TranscriptMessage, type TranscriptRole } from '@mem/core';
import type * as K from '@mem/core/adapter';
import {
  compactionArchiveTime,
  guardTranscriptStore,
  runSqlPausingProgramAsync,
  runSqlProgramAsync,
  SQL_COMPACTION_STEPS,
  sqlGet,
  sqlRun,
  sqlTranscriptParts,
  storedTranscriptMessages,
} from '@mem/core/adapter';
import { ADAPTER, exec, type Sql, type TransactionSql } from './connection.js';
import { transcriptMigrations } from './migrations.js';
import {
  callerCode,
  compositeKey,
  handleOf,
  KeyedQueue,
  openRuntime,
  type PortRuntime,
  type PostgresHandle,
  type PostgresPortOptions,
} from './runtime.js';
import { postgresDialect, postgresExecutor, postgresRunner } from './sql-layer.js';

/** The compaction steps of PostgreSQL: the shared `SQL_COMPACTION_STEPS`, in one transaction under the exclusive lock. */
export const POSTGRES_COMPACTION_STEPS = SQL_COMPACTION_STEPS;
export type PostgresCompactionStep = (typeof POSTGRES_COMPACTION_STEPS)[number];

export interface PostgresTranscriptStoreOptions extends PostgresPortOptions {
  /** Called before each compaction step (`POSTGRES_COMPACTION_STEPS`); throwing simulates a crash there (tests). */
  onCompactionStep?: K.CompactionStepHook;
}

/** A `TranscriptStore` on PostgreSQL plus `migrate()`, `sql` and `schema`. */
export interface PostgresTranscriptStore extends K.TranscriptStore, PostgresHandle {}

type Db = Sql | TransactionSql;

const CAPABILITIES: K.TranscriptStoreCapabilities = { durable: true, crossProcess: true };

/** Messages travel as one jsonb parameter: `[{i, role, content, at}]`, `i` the position in the call. */
function payload(messages: readonly TranscriptMessage[]): string {
  return JSON.stringify(messages.map((m, i) => ({ i, role: m.role, content: m.content, at: m.at })));
}

/** A transcript read back in one statement: its header and its messages as `json_agg` text. */
function transcriptOf(row: { conversationid: string; createdat: string; messages: string } | undefined) {
  if (row === undefined) return null;
  const messages = JSON.parse(row.messages) as [string, string, string][];
  return {
    header: { conversationId: row.conversationid, createdAt: row.createdat },
    messages: messages.map(([role, content, at]): TranscriptMessage => ({ role: role as TranscriptRole, content, at })),
  };
}

/** Open a transcript store on its own connection (`url`) or a shared client (`sql`). Migrates unless told not to. */
export async function createPostgresTranscriptStore(
  options: PostgresTranscriptStoreOptions,
): Promise<PostgresTranscriptStore> {
  const rt = await openRuntime(options, [transcriptMigrations], 'transcript store');
  return transcriptStoreOn(rt, options.onCompactionStep);
}

/** PostgreSQL's transcript statements: each read one snapshot, each write one statement. */
function engineOf(s: string): K.SqlTranscriptEngine {
  return {
    *read(space, agent) {
      // Header and messages in one statement, so one snapshot: never half of a compaction.
      return transcriptOf(
        yield* sqlGet(
          `SELECT t.conversation_id AS conversationid, t.created_at AS createdat,
             coalesce((SELECT json_agg(json_build_array(m.role, m.content, m.at) ORDER BY m.seq)
                       FROM ${s}.transcript_messages m WHERE m.space = t.space AND m.agent = t.agent), '[]')::text AS messages
           FROM ${s}.transcripts t WHERE t.space = $1 AND t.agent = $2`,
          [space, agent],
        ),
      );
    },
    *readArchive(space, agent, id) {
      return transcriptOf(
        yield* sqlGet(
          `SELECT a.conversation_id AS conversationid, a.created_at AS createdat,
             coalesce((SELECT json_agg(json_build_array(m.role, m.content, m.at) ORDER BY m.seq)
                       FROM ${s}.transcript_archive_messages m
                       WHERE m.space = a.space AND m.agent = a.agent AND m.archive_id = a.id), '[]')::text AS messages
           FROM ${s}.transcript_archives a WHERE a.space = $1 AND a.agent = $2 AND a.id = $3`,
          [space, agent, id],
        ),
      );
    },
    *archive(space, agent, archive, n, header) {
      yield* sqlRun(
        `WITH a AS (
           INSERT INTO ${s}.transcript_archives (space, agent, id, archived_at, n, conversation_id, created_at, size)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
         )
         INSERT INTO ${s}.transcript_archive_messages (space, agent, archive_id, seq, role, content, at)
         SELECT m.space, m.agent, a.id, m.seq, m.role, m.content, m.at
         FROM a CROSS JOIN ${s}.transcript_messages m WHERE m.space = $1 AND m.agent = $2`,
        [space, agent, archive.id, archive.archivedAt, n, header.conversationId, header.createdAt, archive.size],
      );
    },
    *replace(space, agent, header, messages) {
      // New sequence numbers continue after every number ever used, so they never meet the rows being deleted.
      yield* sqlRun(
        `WITH d AS (DELETE FROM ${s}.transcript_messages WHERE space = $1 AND agent = $2),
         h AS (
           UPDATE ${s}.transcripts SET conversation_id = $3, created_at = $4, next_seq = next_seq + $5::bigint
           WHERE space = $1 AND agent = $2 RETURNING next_seq - $5::bigint AS first
         )
         INSERT INTO ${s}.transcript_messages (space, agent, seq, role, content, at)
         SELECT $1, $2, h.first + r.i, r.role, r.content, r.at
         FROM h CROSS JOIN jsonb_to_recordset($6::text::jsonb) AS r(i bigint, role text, content text, at text)`,
        [space, agent, header.conversationId, header.createdAt, messages.length, payload(messages)],
      );
    },
  };
}

/** The transcript port over a runtime (shared with the other ports of a bundle). */
export function transcriptStoreOn(rt: PortRuntime, hook?: K.CompactionStepHook): PostgresTranscriptStore {
  const { sql, s } = rt;
  const engine = engineOf(s);
  const { compaction, ...reads } = sqlTranscriptParts(postgresDialect(rt), postgresRunner(rt), engine);
  const appends = new KeyedQueue();
  const lockKey = (space: string, agent: string) => `transcript|${compositeKey(rt.schema, space, agent)}`;
  const step = hook === undefined ? undefined : (name: string) => callerCode(() => hook(name));

  async function lockExclusive(tx: TransactionSql, space: string, agent: string): Promise<void> {
    await exec(tx, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey(space, agent)]);
  }

  /** The compaction, inside a transaction that holds the transcript's exclusive lock. */
  function compactOn(
    tx: TransactionSql,
    space: string,
    agent: string,
    change: K.CompactionChange,
    archived: ReturnType<typeof compactionArchiveTime>,
  ): Promise<K.CompactionResult> {
    return runSqlPausingProgramAsync(compaction(space, agent, change, archived), postgresExecutor(tx), step);
  }

  /**
   * One statement: take the transcript's lock shared, create the header (with `init`) or advance its sequence by the
   * number of messages (the conflict update locks the header row, so concurrent appends get disjoint ranges), insert
   * the messages at the reserved sequence numbers. Atomic and durable once it returns.
   */
  async function appendOn(
    db: Db,
    space: string,
    agent: string,
    messages: readonly TranscriptMessage[],
    init: K.TranscriptHeader,
  ): Promise<{ header: K.TranscriptHeader }> {
    const [row] = await exec<{ conversationid: string; createdat: string }[]>(
      db,
      `WITH l AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0)) AS locked),
       h AS (
         INSERT INTO ${s}.transcripts AS t (space, agent, conversation_id, created_at, next_seq)
         SELECT $2, $3, $4, $5, $6::bigint FROM l
         ON CONFLICT (space, agent) DO UPDATE SET next_seq = t.next_seq + excluded.next_seq
         RETURNING t.conversation_id, t.created_at, t.next_seq - $6::bigint AS first
       ),
       m AS (
         INSERT INTO ${s}.transcript_messages (space, agent, seq, role, content, at)
         SELECT $2, $3, h.first + r.i, r.role, r.content, r.at
         FROM h CROSS JOIN jsonb_to_recordset($7::text::jsonb) AS r(i bigint, role text, content text, at text)
       )
       SELECT h.conversation_id AS conversationid, h.created_at AS createdat FROM h`,
      [lockKey(space, agent), space, agent, init.conversationId, init.createdAt, messages.length, payload(messages)],
    );
    if (row === undefined) throw new Error('the append returned no header');
    return { header: { conversationId: row.conversationid, createdAt: row.createdat } };
  }

  /** Appends of one transcript from this instance commit in call order. */
  const append: K.TranscriptStore['append'] = (space, agent, messages, init) => {
    const kept = storedTranscriptMessages(messages);
    const run = () => rt.run('appending to a transcript', () => appendOn(sql, space, agent, kept, init));
    return appends.run(compositeKey(space, agent), run);
  };

  /** The handle `withLock` gives its body: every call runs in the lock's transaction, each write in a savepoint. */
  function lockedHandle(tx: TransactionSql, space: string, agent: string) {
    let active = true;
    const guard = <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      if (!active) {
        return Promise.reject(
          new MemError(
            'INVALID_INPUT',
            `${ADAPTER}: the transcript handle of agent "${agent}" was used after its withLock call ended; call withLock again.`,
          ),
        );
      }
      return rt.guard(what, fn);
    };
    const api: K.LockedTranscript = {
      read: () =>
        guard('reading a transcript', () => runSqlProgramAsync(engine.read(space, agent), postgresExecutor(tx))),
      async append(messages, init) {
        const kept = storedTranscriptMessages(messages);
        return guard('appending to a transcript', async () => {
          const r = await tx.savepoint((sp) => appendOn(sp, space, agent, kept, init));
          return r as { header: K.TranscriptHeader };
        });
      },
      async compact(change) {
        const archived = compactionArchiveTime(change.archivedAt);
        return guard('compacting a transcript', async () => {
          const r = await tx.savepoint((sp) => compactOn(sp, space, agent, change, archived));
          return r as K.CompactionResult;
        });
      },
    };
    return {
      api,
      end() {
        active = false;
      },
    };
  }

  return guardTranscriptStore<PostgresTranscriptStore>({
    ...handleOf(rt),
    ...reads,
    name: ADAPTER,
    capabilities: CAPABILITIES,

    async append(space, agent, messages, init) {
      return append(space, agent, messages, init);
    },

    async compact(space, agent, change) {
      const archived = compactionArchiveTime(change.archivedAt);
      return rt.run('compacting a transcript', async () => {
        const r = await sql.begin(async (tx) => {
          await lockExclusive(tx, space, agent);
          return compactOn(tx, space, agent, change, archived);
        });
        return r as K.CompactionResult;
      });
    },

    async deleteArchive(space, agent, id) {
      return rt.run('deleting an archive', async () => {
        // Its messages go with it (ON DELETE CASCADE), in the same statement.
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.transcript_archives WHERE space = $1 AND agent = $2 AND id = $3 RETURNING 1 AS one`,
          [space, agent, id],
        );
        return rows.length > 0;
      });
    },

    async remove(space, agent) {
      return rt.run('removing a transcript', async () => {
        const r = await sql.begin(async (tx) => {
          await lockExclusive(tx, space, agent);
          const [row] = await exec<{ transcripts: number; archives: number }[]>(
            tx,
            `WITH am AS (DELETE FROM ${s}.transcript_archive_messages WHERE space = $1 AND agent = $2),
                  a AS (DELETE FROM ${s}.transcript_archives WHERE space = $1 AND agent = $2 RETURNING 1),
                  m AS (DELETE FROM ${s}.transcript_messages WHERE space = $1 AND agent = $2),
                  t AS (DELETE FROM ${s}.transcripts WHERE space = $1 AND agent = $2 RETURNING 1)
             SELECT (SELECT count(*) FROM t)::int AS transcripts, (SELECT count(*) FROM a)::int AS archives`,
            [space, agent],
          );
          return { transcripts: Number(row?.transcripts ?? 0), archives: Number(row?.archives ?? 0) };
        });
        return r as { transcripts: number; archives: number };
      });
    },

    async withLock(space, agent, fn) {
      return rt.run(`holding the lock of agent "${agent}"`, async () => {
        const r = await sql.begin(async (tx) => {
          await lockExclusive(tx, space, agent);
          const handle = lockedHandle(tx, space, agent);
          try {
            return await callerCode(() => fn(handle.api));
          } finally {
            handle.end();
          }
        });
        return r as Awaited<ReturnType<typeof fn>>;
      });
    },
  });
}
