/**
 * The input checks of the transcript port, once for every transcript store (the adapter kit, exported from
 * `@mem/core/adapter`). A store wraps its engine with `guardTranscriptStore`, so that every method refuses a bad name,
 * archive id, message, header or compaction with `INVALID_INPUT` before any I/O, whatever the backend; the engine
 * code then holds no validation of its own.
 */
import { archiveId, invalidArchiveId, parseArchiveId } from '../domain/archive-names.js';
import { checkName } from '../domain/names.js';
import { checkTranscriptHeader, checkTranscriptMessage, checkTranscriptRef } from '../domain/transcript-format.js';
import { MemError } from '../errors.js';
import type {
  CompactionChange,
  LockedTranscript,
  TranscriptHeader,
  TranscriptMessage,
  TranscriptStore,
} from '../ports/transcript-store.js';

/** Messages to append or to write at a compaction: an array of valid messages (`what` names it in the error). */
export function checkTranscriptMessages(messages: unknown, what = 'Messages'): asserts messages is TranscriptMessage[] {
  if (!Array.isArray(messages)) throw new MemError('INVALID_INPUT', `${what} must be an array.`);
  for (const m of messages) checkTranscriptMessage(m as TranscriptMessage);
}

/**
 * The archive time of a compaction as stored (ISO-8601 UTC with milliseconds) and the id of the n-th archive made in
 * that millisecond; `INVALID_INPUT` for a time that names no archive.
 */
export function compactionArchiveTime(archivedAt: unknown): { at: string; id: (n: number) => string } {
  const ms = typeof archivedAt === 'string' ? Date.parse(archivedAt) : Number.NaN;
  const parsed = Number.isNaN(ms) ? null : parseArchiveId(archiveId(new Date(ms).toISOString()));
  if (parsed === null) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid archivedAt "${String(archivedAt).slice(0, 100)}": use an ISO-8601 UTC time with milliseconds (years 0000–9999).`,
    );
  }
  const at = parsed.archivedAt;
  return { at, id: (n) => archiveId(at, n) };
}

/** A whole compaction change, before any I/O: header, messages, the basis it was computed from, archive time. */
export function checkCompactionChange(change: CompactionChange): void {
  checkTranscriptHeader(change.header);
  checkTranscriptMessages(change.messages, 'Compaction messages');
  const basis = change.basis;
  if (
    typeof basis?.conversationId !== 'string' ||
    !Number.isSafeInteger(basis.messageCount) ||
    basis.messageCount < 0
  ) {
    throw new MemError(
      'INVALID_INPUT',
      'Invalid compaction basis: give the conversation id and message count of the transcript you read.',
    );
  }
  compactionArchiveTime(change.archivedAt);
}

function checkAppend(messages: unknown, init: TranscriptHeader): void {
  checkTranscriptMessages(messages);
  checkTranscriptHeader(init);
}

function checkArchiveRef(space: string, agent: string, id: string): void {
  checkTranscriptRef(space, agent);
  if (!parseArchiveId(id)) throw invalidArchiveId(id);
}

/** The handle of `withLock` with the same checks. */
function guardLocked(locked: LockedTranscript): LockedTranscript {
  return {
    read: () => locked.read(),
    append: async (messages, init) => {
      checkAppend(messages, init);
      return locked.append(messages, init);
    },
    compact: async (change) => {
      checkCompactionChange(change);
      return locked.compact(change);
    },
  };
}

/**
 * `store` with the port's input checks in front of every method (space and agent names, archive ids, messages,
 * headers, compaction changes; `INVALID_INPUT`, nothing touched). Every other property of the store (its name,
 * capabilities, `migrate`, getters) is kept as it is.
 */
export function guardTranscriptStore<S extends TranscriptStore>(store: S): S {
  const checked: TranscriptStore = {
    name: store.name,
    capabilities: store.capabilities,
    async append(space, agent, messages, init) {
      checkTranscriptRef(space, agent);
      checkAppend(messages, init);
      return store.append(space, agent, messages, init);
    },
    async read(space, agent) {
      checkTranscriptRef(space, agent);
      return store.read(space, agent);
    },
    async compact(space, agent, change) {
      checkTranscriptRef(space, agent);
      checkCompactionChange(change);
      return store.compact(space, agent, change);
    },
    async listArchives(space, agent) {
      checkTranscriptRef(space, agent);
      return store.listArchives(space, agent);
    },
    async readArchive(space, agent, id) {
      checkArchiveRef(space, agent, id);
      return store.readArchive(space, agent, id);
    },
    async deleteArchive(space, agent, id) {
      checkArchiveRef(space, agent, id);
      return store.deleteArchive(space, agent, id);
    },
    async remove(space, agent) {
      checkTranscriptRef(space, agent);
      return store.remove(space, agent);
    },
    async agents(space) {
      checkName(space, 'space');
      return store.agents(space);
    },
    async withLock(space, agent, fn) {
      checkTranscriptRef(space, agent);
      return store.withLock(space, agent, (locked) => fn(guardLocked(locked)));
    },
    close: () => store.close(),
  };
  const out = Object.defineProperties({}, Object.getOwnPropertyDescriptors(store)) as S;
  for (const [name, value] of Object.entries(checked)) {
    if (name !== 'name' && name !== 'capabilities') Object.defineProperty(out, name, { value, enumerable: true });
  }
  return out;
}
