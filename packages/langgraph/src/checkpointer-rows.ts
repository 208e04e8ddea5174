/**
 * How `MemCheckpointSaver` lays a LangGraph thread out in mem's session-state store (one JSON document per session
 * id, per space). Every document of thread T lives under `.langgraph/t/<T>/`, so deleting the thread is one
 * `deleteSessions` of that prefix; the leading dot keeps the ids apart from the sessions mem's doors store
 * (`<agent>/<session>`; agent names never start with a dot), as mem's own rows (`.context-settings/…`) are.
 *
 * ```
 * .langgraph/threads                         every thread id of the space (for `list` without a thread_id)
 * .langgraph/t/<T>/index                     the thread's namespaces, each with its checkpoint ids, oldest first
 * .langgraph/t/<T>/<N>/c/<C>                 checkpoint C of namespace N (without its channel values) and its metadata
 * .langgraph/t/<T>/<N>/b/<channel>/<C>       a channel's value as written by checkpoint C
 * .langgraph/t/<T>/<N>/w/<C>                 the pending writes against checkpoint C
 * ```
 *
 * Each part is one key segment (`encodeSegment`: `a-z`, `0-9`, `-` kept, anything else as `_<hex>`); a part longer
 * than 40 characters that way becomes `~` and 32 hex digits of its SHA-256, so every id stays within mem's 200
 * characters. The ids are never decoded: the documents hold the raw thread ids, namespaces and checkpoint ids.
 *
 * A document whose JSON is over the chunk size is written as pieces `<id>~<tag>.<i>` first, then a head
 * `{ v, chunked: { tag, count } }` at `<id>`; a rewrite writes new pieces under a new tag, then the head, then drops
 * the old pieces, so a reader never sees a head whose pieces are missing.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JsonValue } from '@mem/core';
import { MemError } from '@mem/core';
import type { SessionStateStore } from '@mem/core/adapter';
import { encodeSegment } from './keys.js';

/** The root of every session id the saver writes. */
export const ROOT = '.langgraph';
const SEGMENT_MAX = 40;

/** One part of a session id: the part as a key segment, or `~` + a hash when that would be long. */
export function segment(value: string): string {
  const encoded = encodeSegment(value);
  return encoded.length <= SEGMENT_MAX ? encoded : `~${createHash('sha256').update(value).digest('hex').slice(0, 32)}`;
}

export const ids = {
  threads: (): string => `${ROOT}/threads`,
  threadPrefix: (thread: string): string => `${ROOT}/t/${segment(thread)}/`,
  index: (thread: string): string => `${ids.threadPrefix(thread)}index`,
  checkpoint: (thread: string, ns: string, id: string): string =>
    `${ids.threadPrefix(thread)}${segment(ns)}/c/${segment(id)}`,
  blob: (thread: string, ns: string, channel: string, id: string): string =>
    `${ids.threadPrefix(thread)}${segment(ns)}/b/${segment(channel)}/${segment(id)}`,
  writes: (thread: string, ns: string, id: string): string =>
    `${ids.threadPrefix(thread)}${segment(ns)}/w/${segment(id)}`,
};

/** Serialised bytes as JSON: the serde's type and the bytes in base64. */
export interface StoredBytes {
  t: string;
  d: string;
}

export const toStored = ([t, bytes]: [string, Uint8Array]): StoredBytes => ({
  t,
  d: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
});
export const fromStored = (s: StoredBytes): Uint8Array => new Uint8Array(Buffer.from(s.d, 'base64'));

/** `.langgraph/threads`. */
export interface ThreadsDoc {
  v: 1;
  threads: string[];
}

/** `.langgraph/t/<T>/index`: namespaces in the order they were first written, checkpoint ids sorted ascending. */
export interface IndexDoc {
  v: 1;
  thread: string;
  namespaces: { ns: string; ids: string[] }[];
}

/**
 * A checkpoint. `channels` says, for each channel of `channel_versions`, which checkpoint's blob holds its value
 * (null: the channel has no value), so an unchanged channel is not written again.
 */
export interface CheckpointDoc {
  v: 1;
  id: string;
  parent: string | null;
  checkpoint: StoredBytes;
  metadata: StoredBytes;
  channels: [string, string | null][];
}

export interface BlobDoc {
  v: 1;
  channel: string;
  value: StoredBytes;
}

export interface StoredWrite {
  task: string;
  idx: number;
  channel: string;
  path: string;
  value: StoredBytes;
}

export interface WritesDoc {
  v: 1;
  writes: StoredWrite[];
}

interface ChunkHead {
  v: 1;
  chunked: { tag: string; count: number };
}

const isHead = (value: unknown): value is ChunkHead =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { chunked?: unknown }).chunked === 'object';

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');
const chunkId = (id: string, tag: string, i: number): string => `${id}~${tag}.${i}`;

/** The session-state documents of one space, with chunking of large documents. */
export class Documents {
  constructor(
    readonly store: SessionStateStore,
    readonly space: string,
    private readonly chunkBytes: number,
    private readonly now: () => string,
  ) {}

  private async head(id: string): Promise<JsonValue | null> {
    return (await this.store.get(this.space, id))?.state ?? null;
  }

  async read<T>(id: string): Promise<T | null> {
    return (await this.load<T>(id)).value;
  }

  /** The document and its head as stored (pass `raw` to `write` as `previous`). */
  async load<T>(id: string): Promise<{ value: T | null; raw: JsonValue | null }> {
    const head = await this.head(id);
    if (head === null || !isHead(head)) return { value: head as T | null, raw: head };
    return { value: await this.pieces<T>(id, head), raw: head };
  }

  private async pieces<T>(id: string, head: ChunkHead): Promise<T> {
    const { tag, count } = head.chunked;
    let text = '';
    for (let i = 0; i < count; i++) {
      const piece = (await this.store.get(this.space, chunkId(id, tag, i)))?.state;
      if (typeof piece !== 'string') {
        throw new MemError(
          'STORE_CORRUPT',
          `The LangGraph checkpoint document ${id} of space ${this.space} is missing piece ${i} of ${count}; delete the thread (deleteThread) to start it over.`,
          { details: { id, piece: i, count } },
        );
      }
      text += piece;
    }
    return JSON.parse(text) as T;
  }

  /** Write a document (in pieces when its JSON is over the chunk size); `previous` is what `read` saw, if known. */
  async write(id: string, value: JsonValue, previous?: unknown): Promise<void> {
    const old = previous === undefined ? await this.head(id) : previous;
    const text = JSON.stringify(value);
    const at = this.now();
    if (utf8(text) <= this.chunkBytes) {
      await this.store.set(this.space, id, value, at);
    } else {
      const tag = randomBytes(4).toString('hex');
      const pieces = split(text, this.chunkBytes);
      for (const [i, piece] of pieces.entries()) await this.store.set(this.space, chunkId(id, tag, i), piece, at);
      const head: ChunkHead = { v: 1, chunked: { tag, count: pieces.length } };
      await this.store.set(this.space, id, head as unknown as JsonValue, at);
    }
    if (isHead(old)) {
      for (let i = 0; i < old.chunked.count; i++) await this.store.delete(this.space, chunkId(id, old.chunked.tag, i));
    }
  }

  deletePrefix(prefix: string): Promise<number> {
    return this.store.deleteSessions(this.space, prefix);
  }
}

/** Split JSON text into pieces whose JSON (as strings) is at most `max` bytes, never inside a surrogate pair. */
export function split(text: string, max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + Math.max(1, max - 16));
    while (end - start > 1 && utf8(JSON.stringify(text.slice(start, end))) > max) {
      end = start + Math.floor((end - start) / 2);
    }
    const code = text.charCodeAt(end - 1);
    if (end < text.length && end - start > 1 && code >= 0xd800 && code <= 0xdbff) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** One task at a time per key: the saver's read-modify-writes of a thread's documents never interleave. */
export class Locks {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

const locksByStore = new WeakMap<object, Locks>();

/** The locks shared by every saver on the same store object in this process. */
export function locksOf(store: object): Locks {
  let locks = locksByStore.get(store);
  if (!locks) {
    locks = new Locks();
    locksByStore.set(store, locks);
  }
  return locks;
}
