/**
 * The TranscriptStore port (docs/conversations.md) on SQLite: one transcript per (space, agent) as a header row plus message rows,
 * archives as frozen copies. Every write is one `BEGIN IMMEDIATE` transaction (see write-lock.ts), durable on commit
 * (`synchronous=FULL`); every statement is filtered by space and agent.
 */
import { MemError, type TranscriptMessage, type TranscriptRole } from '@mem/core';
import {
  type ArchiveInfo,
  type CompactionChange,
  type CompactionResult,
  type CompactionStepHook,
  checkCompactionBasis,
  compactionArchiveTime,
  guardTranscriptStore,
  isEmptyContent,
  type LockedTranscript,
  renderTranscript,
  type Transcript,
  type TranscriptHeader,
  type TranscriptStore,
} from '@mem/core/adapter';
import { acquireConnection, type SqliteHandle, type SqliteOpenOptions } from './connection.js';
import { ADAPTER } from './database.js';
import { CONVERSATION_SCHEMA_VERSION } from './migrations.js';
import { ensureFullSync, readSnapshot, writeTransaction } from './write-lock.js';

/**
 * The steps of a compaction, in order; the step hook is called before each. All of them run in one transaction, so a
 * crash (or a throwing hook) anywhere leaves the old transcript and no archive; after `commit` both are in place.
 */
export const SQLITE_COMPACTION_STEPS = ['archive', 'replace', 'commit'] as const;
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

interface ArchiveRow {
  rid: number;
  id: string;
  archived_at: string;
  size: number;
  conversation_id: string;
  created_at: string;
}

const toMessage = (row: MessageRow): TranscriptMessage => ({
  role: row.role as TranscriptRole,
  content: row.content,
  at: row.at,
});

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

  function readHeader(space: string, agent: string): HeaderRow | undefined {
    return c
      .stmt('SELECT conversation_id, created_at, next_seq FROM transcripts WHERE space = ? AND agent = ?')
      .get(space, agent) as HeaderRow | undefined;
  }

  function readMessages(space: string, agent: string): TranscriptMessage[] {
    const rows = c
      .stmt('SELECT role, content, at FROM transcript_messages WHERE space = ? AND agent = ? ORDER BY seq')
      .all(space, agent) as MessageRow[];
    return rows.map(toMessage);
  }

  function readTranscript(space: string, agent: string): Transcript | null {
    const row = readHeader(space, agent);
    if (row === undefined) return null;
    return {
      header: { conversationId: row.conversation_id, createdAt: row.created_at },
      messages: readMessages(space, agent),
    };
  }

  /** Insert messages from sequence number `seq` on; returns the next free one. */
  function insertMessages(space: string, agent: string, seq: number, messages: readonly TranscriptMessage[]): number {
    const insert = c.stmt(
      'INSERT INTO transcript_messages (space, agent, seq, role, content, at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    let next = seq;
    for (const m of messages) insert.run(space, agent, next++, m.role, m.content, m.at);
    return next;
  }

  function appendRows(
    space: string,
    agent: string,
    messages: readonly TranscriptMessage[],
    init: TranscriptHeader,
  ): { header: TranscriptHeader } {
    const row = readHeader(space, agent);
    if (row === undefined) {
      const next = insertMessages(space, agent, 0, messages);
      c.stmt(
        'INSERT INTO transcripts (space, agent, conversation_id, created_at, next_seq) VALUES (?, ?, ?, ?, ?)',
      ).run(space, agent, init.conversationId, init.createdAt, next);
      return { header: { conversationId: init.conversationId, createdAt: init.createdAt } };
    }
    if (messages.length > 0) {
      const next = insertMessages(space, agent, row.next_seq, messages);
      c.stmt('UPDATE transcripts SET next_seq = ? WHERE space = ? AND agent = ?').run(next, space, agent);
    }
    return { header: { conversationId: row.conversation_id, createdAt: row.created_at } };
  }

  function append(
    space: string,
    agent: string,
    messages: TranscriptMessage[],
    init: TranscriptHeader,
  ): Promise<{ header: TranscriptHeader }> {
    const kept = messages
      .filter((m) => !isEmptyContent(m.content))
      .map((m) => ({ role: m.role, content: m.content, at: m.at }));
    return writeTransaction(c, 'appending to a transcript', () => appendRows(space, agent, kept, init));
  }

  /** The compaction, one step per `yield` (the hook runs there); runs inside the write transaction. */
  function* compaction(
    space: string,
    agent: string,
    change: CompactionChange,
    archivedAt: ReturnType<typeof compactionArchiveTime>,
  ): Generator<SqliteCompactionStep, CompactionResult, void> {
    const current = readTranscript(space, agent);
    if (current === null)
      throw new MemError('NOT_FOUND', `${ADAPTER}: agent "${agent}" has no transcript to compact in space "${space}".`);
    checkCompactionBasis(current, change, agent);
    const carried = current.messages.slice(change.basis.messageCount);

    yield 'archive';
    const last = c
      .stmt('SELECT max(n) AS n FROM transcript_archives WHERE space = ? AND agent = ? AND archived_at = ?')
      .get(space, agent, archivedAt.at) as { n: number | null };
    const n = (last.n ?? 0) + 1;
    const archive: ArchiveInfo = {
      id: archivedAt.id(n),
      archivedAt: archivedAt.at,
      size: Buffer.byteLength(renderTranscript(agent, current), 'utf8'),
    };
    const { rid } = c
      .stmt(
        `INSERT INTO transcript_archives (space, agent, id, archived_at, n, conversation_id, created_at, size)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING rid`,
      )
      .get(
        space,
        agent,
        archive.id,
        archive.archivedAt,
        n,
        current.header.conversationId,
        current.header.createdAt,
        archive.size,
      ) as { rid: number };
    c.stmt(
      `INSERT INTO transcript_archive_messages (archive_rid, seq, role, content, at)
       SELECT ?, seq, role, content, at FROM transcript_messages WHERE space = ? AND agent = ? ORDER BY seq`,
    ).run(rid, space, agent);

    yield 'replace';
    const fresh = change.messages
      .filter((m) => !isEmptyContent(m.content))
      .map((m) => ({ role: m.role, content: m.content, at: m.at }));
    const messages = [...fresh, ...carried];
    const header = readHeader(space, agent)!;
    c.stmt('DELETE FROM transcript_messages WHERE space = ? AND agent = ?').run(space, agent);
    const next = insertMessages(space, agent, header.next_seq, messages);
    c.stmt(
      'UPDATE transcripts SET conversation_id = ?, created_at = ?, next_seq = ? WHERE space = ? AND agent = ?',
    ).run(change.header.conversationId, change.header.createdAt, next, space, agent);

    yield 'commit';
    return {
      archive,
      transcript: {
        header: { conversationId: change.header.conversationId, createdAt: change.header.createdAt },
        messages,
      },
      carried: carried.length,
    };
  }

  function compact(space: string, agent: string, change: CompactionChange): Promise<CompactionResult> {
    const archivedAt = compactionArchiveTime(change.archivedAt);
    return writeTransaction(c, 'compacting a transcript', () => {
      const steps = compaction(space, agent, change, archivedAt);
      if (hook === undefined) {
        for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
      }
      return (async () => {
        for (let r = steps.next(); ; r = steps.next()) {
          if (r.done) return r.value;
          await hook(r.value);
        }
      })();
    });
  }

  function read(space: string, agent: string): Promise<Transcript | null> {
    return readSnapshot(c, 'reading a transcript', () => readTranscript(space, agent));
  }

  function locked(space: string, agent: string): LockedTranscript {
    return {
      read: async () => read(space, agent),
      append: async (messages, init) => append(space, agent, messages, init),
      compact: async (change) => compact(space, agent, change),
    };
  }

  const archiveRow = (space: string, agent: string, id: string) =>
    c
      .stmt(
        `SELECT rid, id, archived_at, size, conversation_id, created_at FROM transcript_archives
         WHERE space = ? AND agent = ? AND id = ?`,
      )
      .get(space, agent, id) as ArchiveRow | undefined;

  const handle = c.handle();
  return guardTranscriptStore<SqliteTranscriptStore>({
    name: ADAPTER,
    capabilities: { durable: true, crossProcess: true },
    db: handle.db,
    nativeVector: handle.nativeVector,
    eraser: handle.eraser,
    migrate: handle.migrate,
    close: handle.close,

    async append(space, agent, messages, init) {
      return append(space, agent, messages, init);
    },

    async read(space, agent) {
      return read(space, agent);
    },

    async compact(space, agent, change) {
      return compact(space, agent, change);
    },

    async listArchives(space, agent) {
      return readSnapshot(c, 'listing archives', () => {
        const rows = c
          .stmt(
            `SELECT id, archived_at, size FROM transcript_archives WHERE space = ? AND agent = ?
             ORDER BY archived_at, n`,
          )
          .all(space, agent) as { id: string; archived_at: string; size: number }[];
        // archived_at is ISO UTC with milliseconds, so this is the order of compareArchiveIds.
        return rows.map((r): ArchiveInfo => ({ id: r.id, archivedAt: r.archived_at, size: r.size }));
      });
    },

    async readArchive(space, agent, id) {
      return readSnapshot(c, 'reading an archive', (): Transcript => {
        const row = archiveRow(space, agent, id);
        if (row === undefined) {
          throw new MemError(
            'NOT_FOUND',
            `${ADAPTER}: no archive "${id}" for agent "${agent}" in space "${space}"; listArchives shows the ones that exist.`,
          );
        }
        const messages = c
          .stmt('SELECT role, content, at FROM transcript_archive_messages WHERE archive_rid = ? ORDER BY seq')
          .all(row.rid) as MessageRow[];
        return {
          header: { conversationId: row.conversation_id, createdAt: row.created_at },
          messages: messages.map(toMessage),
        };
      });
    },

    async deleteArchive(space, agent, id) {
      return writeTransaction(c, 'deleting an archive', () => {
        const row = archiveRow(space, agent, id);
        if (row === undefined) return false;
        c.stmt('DELETE FROM transcript_archive_messages WHERE archive_rid = ?').run(row.rid);
        c.stmt('DELETE FROM transcript_archives WHERE rid = ?').run(row.rid);
        return true;
      });
    },

    async remove(space, agent) {
      return writeTransaction(c, 'removing a transcript', () => {
        c.stmt(
          `DELETE FROM transcript_archive_messages WHERE archive_rid IN (
             SELECT rid FROM transcript_archives WHERE space = ? AND agent = ?)`,
        ).run(space, agent);
        const archives = c.stmt('DELETE FROM transcript_archives WHERE space = ? AND agent = ?').run(space, agent);
        c.stmt('DELETE FROM transcript_messages WHERE space = ? AND agent = ?').run(space, agent);
        const transcripts = c.stmt('DELETE FROM transcripts WHERE space = ? AND agent = ?').run(space, agent);
        return { transcripts: transcripts.changes, archives: archives.changes };
      });
    },

    async agents(space) {
      return readSnapshot(c, 'listing agents', () => {
        const rows = c
          .stmt(
            'SELECT agent FROM transcripts WHERE space = ? UNION SELECT agent FROM transcript_archives WHERE space = ?',
          )
          .all(space, space) as { agent: string }[];
        // JavaScript order (UTF-16 code units), as the other adapters sort.
        return rows.map((r) => r.agent).sort();
      });
    },

    async withLock(space, agent, fn) {
      const tx = locked(space, agent);
      return writeTransaction(c, `holding the lock of agent "${agent}"`, async () => fn(tx));
    },
  });
}
