/**
 * The TranscriptStore port (docs/conversations.md) on SQLite: one transcript per (space, agent) as a header row plus message rows,
 * archives as frozen copies. Every write is one `BEGIN IMMEDIATE` transaction (see write-lock.ts), durable on commit
 * (`synchronous=FULL`); every statement is filtered by space and agent.
 */
import type { TranscriptMessage, TranscriptRole } from '@mem/core';
import {
  type CompactionChange,
  type CompactionStepHook,
  compactionArchiveTime,
  guardTranscriptStore,
  type LockedTranscript,
  runSqlPausingProgram,
  SQL_COMPACTION_STEPS,
  type SqlProgram,
  type SqlTranscriptEngine,
  sqlAll,
  sqlGet,
  sqlRun,
  sqlTranscriptParts,
  storedTranscriptMessages,
  type TranscriptHeader,
  type TranscriptStore,
} from '@mem/core/adapter';
import { acquireConnection, type SqliteHandle, type SqliteOpenOptions } from './connection.js';
import { CONVERSATION_SCHEMA_VERSION } from './migrations.js';
import { sqliteDialect, sqliteExecutor, sqliteGatedRunner } from './sql-layer.js';
import { ensureFullSync, writeTransaction } from './write-lock.js';

/** The compaction steps of SQLite: the shared `SQL_COMPACTION_STEPS`, in one BEGIN IMMEDIATE transaction. */
export const SQLITE_COMPACTION_STEPS = SQL_COMPACTION_STEPS;
export type SqliteCompactionStep = (typeof SQLITE_COMPACTION_STEPS)[number];

export type SqliteTranscriptStoreOptions = SqliteOpenOptions & {
  /** Called before each compaction step (`SQLITE_COMPACTION_STEPS`); throwing simulates a crash there (tests). */
  onCompactionStep?: CompactionStepHook;
};

/** A `TranscriptStore` on SQLite plus the connection handle (`db`, `nativeVector`, `migrate()`, `close()`). */
export interface SqliteTranscriptStore extends TranscriptStore, SqliteHandle {}

interface HeaderRow {
  conversation_id: string;
  created_at: string;
  next_seq: number;
}

interface MessageRow {
  role: string;
  content: string;
  at: string;
}

const toMessage = (row: MessageRow): TranscriptMessage => ({
  role: row.role as TranscriptRole,
  content: row.content,
  at: row.at,
});

const HEADER = 'SELECT conversation_id, created_at, next_seq FROM transcripts WHERE space = ? AND agent = ?';
const INSERT_MESSAGE =
  'INSERT INTO transcript_messages (space, agent, seq, role, content, at) VALUES (?, ?, ?, ?, ?, ?)';
const ARCHIVE =
  'SELECT rid, conversation_id, created_at FROM transcript_archives WHERE space = ? AND agent = ? AND id = ?';

/** Insert messages from sequence number `seq` on; returns the next free one. */
function* insertMessages(
  space: string,
  agent: string,
  seq: number,
  messages: readonly TranscriptMessage[],
): SqlProgram<number> {
  let next = seq;
  for (const m of messages) yield* sqlRun(INSERT_MESSAGE, [space, agent, next++, m.role, m.content, m.at]);
  return next;
}

/** Create the transcript with `init` or append to it, in order, with sequence numbers that only grow. */
function* appendRows(
  space: string,
  agent: string,
  messages: readonly TranscriptMessage[],
  init: TranscriptHeader,
): SqlProgram<{ header: TranscriptHeader }> {
  const row = yield* sqlGet<HeaderRow>(HEADER, [space, agent]);
  if (row === undefined) {
    const next = yield* insertMessages(space, agent, 0, messages);
    yield* sqlRun(
      'INSERT INTO transcripts (space, agent, conversation_id, created_at, next_seq) VALUES (?, ?, ?, ?, ?)',
      [space, agent, init.conversationId, init.createdAt, next],
    );
    return { header: { conversationId: init.conversationId, createdAt: init.createdAt } };
  }
  if (messages.length > 0) {
    const next = yield* insertMessages(space, agent, row.next_seq, messages);
    yield* sqlRun('UPDATE transcripts SET next_seq = ? WHERE space = ? AND agent = ?', [next, space, agent]);
  }
  return { header: { conversationId: row.conversation_id, createdAt: row.created_at } };
}

/** SQLite's transcript statements: archive messages hang off their archive's rid. */
const ENGINE: SqlTranscriptEngine = {
  *read(space, agent) {
    const row = yield* sqlGet<HeaderRow>(HEADER, [space, agent]);
    if (row === undefined) return null;
    const messages = yield* sqlAll<MessageRow>(
      'SELECT role, content, at FROM transcript_messages WHERE space = ? AND agent = ? ORDER BY seq',
      [space, agent],
    );
    return {
      header: { conversationId: row.conversation_id, createdAt: row.created_at },
      messages: messages.map(toMessage),
    };
  },
  *readArchive(space, agent, id) {
    const row = yield* sqlGet<{ rid: number; conversation_id: string; created_at: string }>(ARCHIVE, [
      space,
      agent,
      id,
    ]);
    if (row === undefined) return null;
    const messages = yield* sqlAll<MessageRow>(
      'SELECT role, content, at FROM transcript_archive_messages WHERE archive_rid = ? ORDER BY seq',
      [row.rid],
    );
    return {
      header: { conversationId: row.conversation_id, createdAt: row.created_at },
      messages: messages.map(toMessage),
    };
  },
  *archive(space, agent, archive, n, header) {
    const row = yield* sqlGet<{ rid: number }>(
      `INSERT INTO transcript_archives (space, agent, id, archived_at, n, conversation_id, created_at, size)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING rid`,
      [space, agent, archive.id, archive.archivedAt, n, header.conversationId, header.createdAt, archive.size],
    );
    yield* sqlRun(
      `INSERT INTO transcript_archive_messages (archive_rid, seq, role, content, at)
       SELECT ?, seq, role, content, at FROM transcript_messages WHERE space = ? AND agent = ? ORDER BY seq`,
      [(row as { rid: number }).rid, space, agent],
    );
  },
  *replace(space, agent, header, messages) {
    const current = (yield* sqlGet<HeaderRow>(HEADER, [space, agent])) as HeaderRow;
    yield* sqlRun('DELETE FROM transcript_messages WHERE space = ? AND agent = ?', [space, agent]);
    const next = yield* insertMessages(space, agent, current.next_seq, messages);
    yield* sqlRun(
      'UPDATE transcripts SET conversation_id = ?, created_at = ?, next_seq = ? WHERE space = ? AND agent = ?',
      [header.conversationId, header.createdAt, next, space, agent],
    );
  },
};

/**
 * TranscriptStore on the shared SQLite file: `transcripts` (header and next sequence number per (space, agent)),
 * `transcript_messages`, `transcript_archives` and `transcript_archive_messages` (migration 3).
 *
 * - `append` inserts the messages of one call in one transaction, in order, with sequence numbers that only grow;
 *   it resolves once the commit is synced.
 * - `compact` is one transaction: read and check the basis (`CONFLICT` when stale), copy the whole transcript into a
 *   new archive (id `history_<time>` plus `-<n>` after the first in a millisecond), then replace the messages by the
 *   new ones followed by those appended after the basis.
 * - `withLock` runs its function inside `BEGIN IMMEDIATE … COMMIT`: it holds the file's write lock, which SQLite
 *   releases when the holder's connection closes or its process dies.
 */
export function createSqliteTranscriptStore(options: SqliteTranscriptStoreOptions): SqliteTranscriptStore {
  const c = acquireConnection(options, CONVERSATION_SCHEMA_VERSION);
  ensureFullSync(c.db);
  const hook = options.onCompactionStep;
  const exec = sqliteExecutor(c);
  const r = sqliteGatedRunner(c);
  const { compaction, ...reads } = sqlTranscriptParts(sqliteDialect, r, ENGINE);

  const append: TranscriptStore['append'] = (space, agent, messages, init) =>
    r.transaction('appending to a transcript', () =>
      appendRows(space, agent, storedTranscriptMessages(messages), init),
    );

  /** One transaction; with a step hook, awaited between the steps while the transaction stays open. */
  function compact(space: string, agent: string, change: CompactionChange) {
    const archivedAt = compactionArchiveTime(change.archivedAt);
    return writeTransaction(c, 'compacting a transcript', () =>
      runSqlPausingProgram(compaction(space, agent, change, archivedAt), exec, hook),
    );
  }

  function locked(space: string, agent: string): LockedTranscript {
    return {
      read: async () => reads.read(space, agent),
      append: async (messages, init) => append(space, agent, messages, init),
      compact: async (change) => compact(space, agent, change),
    };
  }

  return guardTranscriptStore<SqliteTranscriptStore>({
    ...reads,
    ...c.handle(),
    name: sqliteDialect.adapter,
    capabilities: { durable: true, crossProcess: true },

    async append(space, agent, messages, init) {
      return append(space, agent, messages, init);
    },

    async compact(space, agent, change) {
      return compact(space, agent, change);
    },

    async deleteArchive(space, agent, id) {
      return r.transaction('deleting an archive', function* () {
        const row = yield* sqlGet<{ rid: number }>(ARCHIVE, [space, agent, id]);
        if (row === undefined) return false;
        yield* sqlRun('DELETE FROM transcript_archive_messages WHERE archive_rid = ?', [row.rid]);
        yield* sqlRun('DELETE FROM transcript_archives WHERE rid = ?', [row.rid]);
        return true;
      });
    },

    async remove(space, agent) {
      return r.transaction('removing a transcript', function* () {
        const params = [space, agent];
        yield* sqlRun(
          `DELETE FROM transcript_archive_messages WHERE archive_rid IN (
             SELECT rid FROM transcript_archives WHERE space = ? AND agent = ?)`,
          params,
        );
        const archives = yield* sqlRun('DELETE FROM transcript_archives WHERE space = ? AND agent = ?', params);
        yield* sqlRun('DELETE FROM transcript_messages WHERE space = ? AND agent = ?', params);
        const transcripts = yield* sqlRun('DELETE FROM transcripts WHERE space = ? AND agent = ?', params);
        return { transcripts, archives };
      });
    },

    async withLock(space, agent, fn) {
      const tx = locked(space, agent);
      return writeTransaction(c, `holding the lock of agent "${agent}"`, async () => fn(tx));
    },
  });
}
