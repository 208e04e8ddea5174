/**
 * What the transcript stores over SQL share (docs/conversations.md): the reads, the archive listing and the
 * compaction, written once over the engine's transcript tables. The engine keeps its appends, its locking (a write
 * lock, advisory locks) and the statements that copy and replace messages, which its schema shapes.
 */
import { checkCompactionBasis } from '../../domain/compaction.js';
import { utf8Bytes } from '../../domain/notebook.js';
import { isEmptyContent, renderTranscript } from '../../domain/transcript-format.js';
import { MemError } from '../../errors.js';
import type {
  ArchiveInfo,
  CompactionChange,
  CompactionResult,
  Transcript,
  TranscriptHeader,
  TranscriptMessage,
  TranscriptStore,
} from '../../ports/transcript-store.js';
import type { compactionArchiveTime } from '../transcripts.js';
import type { SqlDialect, SqlRunner } from './dialect.js';
import { type SqlPausingProgram, type SqlProgram, sqlAll, sqlGet, sqlPause } from './program.js';

/**
 * The steps of a compaction, in order; the step hook is called before each. All of them run in one transaction, so a
 * crash (or a throwing hook) anywhere leaves the old transcript and no archive; after `commit` both are in place.
 */
export const SQL_COMPACTION_STEPS = ['archive', 'replace', 'commit'] as const;

/** What an engine gives the shared transcript logic: the statements its schema shapes. */
export interface SqlTranscriptEngine {
  /** The transcript of an agent (header and messages from one snapshot), or null when it has none. */
  read(space: string, agent: string): SqlProgram<Transcript | null>;
  /** An archive's transcript, or null when the agent has no archive of that id. */
  readArchive(space: string, agent: string, id: string): SqlProgram<Transcript | null>;
  /** Store `archive` (the `n`-th of its millisecond) as a copy of the current transcript, whose header is `header`. */
  archive(space: string, agent: string, archive: ArchiveInfo, n: number, header: TranscriptHeader): SqlProgram<void>;
  /**
   * Replace the transcript's header by `header` and its messages by `messages`, numbered after every sequence number
   * used so far.
   */
  replace(
    space: string,
    agent: string,
    header: TranscriptHeader,
    messages: readonly TranscriptMessage[],
  ): SqlProgram<void>;
}

/** The shared part of a SQL transcript store: its reads, and its compaction as a program. */
export interface SqlTranscriptParts extends Pick<TranscriptStore, 'read' | 'listArchives' | 'readArchive' | 'agents'> {
  /**
   * A compaction, pausing before each of `SQL_COMPACTION_STEPS`: run it in one transaction that holds the
   * transcript's exclusive lock.
   */
  compaction(
    space: string,
    agent: string,
    change: CompactionChange,
    archived: ReturnType<typeof compactionArchiveTime>,
  ): SqlPausingProgram<CompactionResult>;
}

/** Messages as stored: only role, content and time, empty contents skipped. */
export function storedTranscriptMessages(messages: readonly TranscriptMessage[]): TranscriptMessage[] {
  return messages
    .filter((m) => !isEmptyContent(m.content))
    .map((m) => ({ role: m.role, content: m.content, at: m.at }));
}

/** The reads and the compaction over a dialect, a runner and the engine's statements. */
export function sqlTranscriptParts(d: SqlDialect, r: SqlRunner, engine: SqlTranscriptEngine): SqlTranscriptParts {
  const transcripts = d.table('transcripts');
  const archives = d.table('transcript_archives');
  const ofAgent = `space = ${d.param(1)} AND agent = ${d.param(2)}`;
  // archived_at is ISO UTC with milliseconds (byte order), so this is the order of compareArchiveIds.
  const list = `SELECT id, archived_at AS archivedat, size FROM ${archives} WHERE ${ofAgent} ORDER BY archived_at, n`;
  const agents = `SELECT agent FROM ${transcripts} WHERE space = ${d.param(1)}
    UNION SELECT agent FROM ${archives} WHERE space = ${d.param(2)}`;
  // Under the exclusive lock nobody else takes a slot in this millisecond; the unique slot is the backstop.
  const slot = `SELECT max(n) AS n FROM ${archives} WHERE ${ofAgent} AND archived_at = ${d.param(3)}`;

  return {
    read(space, agent) {
      return r.run('reading a transcript', () => engine.read(space, agent));
    },
    listArchives(space, agent) {
      return r.run('listing archives', function* () {
        const rows = yield* sqlAll<{ id: string; archivedat: string; size: number }>(list, [space, agent]);
        return rows.map((row): ArchiveInfo => ({ id: row.id, archivedAt: row.archivedat, size: Number(row.size) }));
      });
    },
    readArchive(space, agent, id) {
      return r.run('reading an archive', function* () {
        const archive = yield* engine.readArchive(space, agent, id);
        if (archive !== null) return archive;
        throw new MemError(
          'NOT_FOUND',
          `${d.adapter}: no archive "${id}" for agent "${agent}" in space "${space}"; listArchives shows the ones that exist.`,
        );
      });
    },
    agents(space) {
      return r.run('listing agents', function* () {
        // JavaScript order (UTF-16 code units), as the other adapters sort.
        return (yield* sqlAll<{ agent: string }>(agents, [space, space])).map((row) => row.agent).sort();
      });
    },
    *compaction(space, agent, change, archived) {
      const current = yield* engine.read(space, agent);
      if (current === null) {
        throw new MemError(
          'NOT_FOUND',
          `${d.adapter}: agent "${agent}" has no transcript to compact in space "${space}".`,
        );
      }
      checkCompactionBasis(current, change, agent);
      const carried = current.messages.slice(change.basis.messageCount);

      yield* sqlPause('archive');
      const n = Number((yield* sqlGet<{ n: number | null }>(slot, [space, agent, archived.at]))?.n ?? 0) + 1;
      const archive: ArchiveInfo = {
        id: archived.id(n),
        archivedAt: archived.at,
        size: utf8Bytes(renderTranscript(agent, current)),
      };
      yield* engine.archive(space, agent, archive, n, current.header);

      yield* sqlPause('replace');
      const messages = [...storedTranscriptMessages(change.messages), ...carried];
      yield* engine.replace(space, agent, change.header, messages);

      yield* sqlPause('commit');
      return {
        archive,
        transcript: {
          header: { conversationId: change.header.conversationId, createdAt: change.header.createdAt },
          messages,
        },
        carried: carried.length,
      };
    },
  };
}
