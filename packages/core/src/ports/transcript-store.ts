import type { Erasable } from './eraser.js';

/** Who wrote a transcript message. `tool` carries a tool result. */
export type TranscriptRole = 'system' | 'user' | 'assistant' | 'tool';
export const TRANSCRIPT_ROLES: readonly TranscriptRole[] = ['system', 'user', 'assistant', 'tool'];

/**
 * The one message shape of a turn, from a framework adapter through the runner to the transcript and back into the
 * model's context: a role and its text (a tool result's content is its text).
 */
export interface TurnMessage {
  role: TranscriptRole;
  content: string;
}

/** One message of a transcript: a turn's message with the time it was written, ISO-8601 UTC with milliseconds (`2026-03-01T12:00:00.000Z`). */
export interface TranscriptMessage extends TurnMessage {
  at: string;
}

/**
 * The header of a transcript. Every compaction starts a fresh transcript with a new `conversationId`,
 * which is how a compaction notices that another one got there first (see `CompactionChange.basis`).
 */
export interface TranscriptHeader {
  conversationId: string;
  createdAt: string;
}

export interface Transcript {
  header: TranscriptHeader;
  messages: TranscriptMessage[];
}

/** An immutable copy of a transcript taken by a compaction. Ids sort in archive order. */
export interface ArchiveInfo {
  /** `history_<UTC time with milliseconds>` plus `-<n>` when several archives share one millisecond. */
  id: string;
  archivedAt: string;
  /** Size in bytes of the archived transcript as stored. */
  size: number;
}

/**
 * A compaction: archive the current transcript whole, then replace it by `header` + `messages` + whatever was
 * appended after the snapshot the caller worked from. Both steps happen under the store's exclusive lock.
 */
export interface CompactionChange {
  /**
   * The snapshot the replacement was computed from: its conversation id and how many messages it had.
   * `CONFLICT` when the transcript has since been compacted (another id) or holds fewer messages;
   * messages beyond `messageCount` are carried over into the new transcript after `messages`.
   */
  basis: { conversationId: string; messageCount: number };
  /** The fresh header of the new transcript. */
  header: TranscriptHeader;
  /** What replaces the covered messages (a summary block, a kept window…). Empty contents are skipped. */
  messages: TranscriptMessage[];
  /** When the archive is taken: names the archive entry. */
  archivedAt: string;
}

export interface CompactionResult {
  archive: ArchiveInfo;
  /** The new transcript as stored. */
  transcript: Transcript;
  /** Messages appended after the basis snapshot and carried into the new transcript. */
  carried: number;
}

/** Operations available while holding a transcript's exclusive lock (see `TranscriptStore.withLock`). */
export interface LockedTranscript {
  read(): Promise<Transcript | null>;
  append(messages: TranscriptMessage[], init: TranscriptHeader): Promise<{ header: TranscriptHeader }>;
  compact(change: CompactionChange): Promise<CompactionResult>;
}

/** Called before each step of a compaction with the step's name; throwing simulates a crash there (tests). */
export type CompactionStepHook = (step: string) => void | Promise<void>;

export interface TranscriptStoreCapabilities {
  /** Data survives the process (false for the in-memory adapter). */
  durable: boolean;
  /** Several processes may use one transcript at once: appends from all survive, compaction is exclusive. */
  crossProcess: boolean;
}

/**
 * Storage of conversation transcripts (docs/conversations.md): one per (space, agent), append-only between compactions,
 * plus immutable archives. Every method validates `space` and `agent` with `checkName` (`INVALID_INPUT`).
 *
 * Guarantees every adapter gives (the conformance suite checks them):
 * - `append` resolves only once the messages are durable; appends from several writers all survive and
 *   never interleave inside a message;
 * - `compact` is exclusive per transcript; a crash at any point leaves the old transcript or the new one,
 *   and the archive is complete before the transcript is replaced;
 * - archive ids never collide, even for two compactions in one millisecond;
 * - nothing crosses spaces or agents.
 */
export interface TranscriptStore extends Erasable {
  readonly name: string;
  readonly capabilities: TranscriptStoreCapabilities;

  /**
   * Append messages in order, durably. When the transcript does not exist yet it is created with `init` as
   * its header. Messages with empty (whitespace-only) content are skipped. Returns the transcript's header.
   */
  append(
    space: string,
    agent: string,
    messages: TranscriptMessage[],
    init: TranscriptHeader,
  ): Promise<{ header: TranscriptHeader }>;
  /** The current transcript, or null when the agent has none. */
  read(space: string, agent: string): Promise<Transcript | null>;
  /** Archive the current transcript and replace it (see `CompactionChange`). `NOT_FOUND` without a transcript. */
  compact(space: string, agent: string, change: CompactionChange): Promise<CompactionResult>;
  /** Archives, oldest first. */
  listArchives(space: string, agent: string): Promise<ArchiveInfo[]>;
  /** One archive's transcript; `NOT_FOUND` when unknown, `INVALID_INPUT` for an id that is not an archive id. */
  readArchive(space: string, agent: string, id: string): Promise<Transcript>;
  /** Delete one archive (retention); false when it did not exist. */
  deleteArchive(space: string, agent: string, id: string): Promise<boolean>;
  /** Delete the transcript and every archive of an agent (`forget`); reports what was removed. */
  remove(space: string, agent: string): Promise<{ transcripts: number; archives: number }>;
  /** Agents of a space that have a transcript or archives, sorted. */
  agents(space: string): Promise<string[]>;
  /**
   * Run `fn` holding the transcript's exclusive lock (the one compaction takes). Appends from other writers
   * wait meanwhile, so keep `fn` short; use the given handle, not the store, inside `fn`.
   */
  withLock<T>(space: string, agent: string, fn: (tx: LockedTranscript) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
