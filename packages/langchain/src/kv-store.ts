/**
 * `MemKeyValueStore`: a LangChain `BaseStore<string, T>` on mem's session-state store (the structured port
 * `sessionState`: one JSON state per session id and space, with get, set, delete and deleteSessions(prefix)).
 *
 * Layout (README.md, "The key-value store"), under a root per namespace:
 *
 *   root                 `.langchain-kv/<namespace>/`, or `<agentId>/langchain-kv/<namespace>/` with `agentId`
 *   a value              `<root>v/<key, escaped>`: `{ "$mem": "langchain-kv", "v": 1, "key": …, "value": <JSON> }`,
 *                        or `… "base64": "<bytes>" }` for a Uint8Array (the `base64` field is the marker)
 *   a long key's value   `<root>h/<sha-256 of the key>` when the escaped id would pass 200 characters
 *   the key index        16 documents `<root>i/<0…f>` (the first hex digit of the key's sha-256):
 *                        `{ "$mem": "langchain-kv-index", "v": 1, "keys": [sorted keys] }`
 *
 * The port cannot list session ids, so `yieldKeys` reads the key index, which `mset` and `mdelete` update after
 * the values: a crash between the two leaves a value that `mget` finds but `yieldKeys` does not list yet (the next
 * `mset` of the key lists it), or a deleted key still listed (the next `mdelete` of it unlists it).
 */
import { createHash } from 'node:crypto';
import { BaseStore } from '@langchain/core/stores';
import { checkName, type JsonValue, MemError, type Stack } from '@mem/core';
import { guardSessionStateStore, type SessionStateStore, sameJson } from '@mem/core/adapter';

export interface MemKeyValueStoreOptions {
  /** The mem stack: its session-state store (`stack.structured.sessionState`) and clock. Give this or `sessionState`. */
  stack?: Stack | undefined;
  /** A session-state store (a port from @mem/store-sqlite, @mem/store-postgres or createInMemoryStructuredStores()). */
  sessionState?: SessionStateStore | undefined;
  /** The space (tenant) the keys live in. */
  space: string;
  /**
   * Separates stores in one space (default `default`): 1–64 letters, digits, `.`, `_`, `:` or `-`, starting with a
   * letter or digit. Two stores with the same space, namespace and agent share their keys.
   */
  namespace?: string | undefined;
  /**
   * The agent that owns the keys: they live among its sessions (`<agentId>/…`), so that mem's
   * `forget({ agentId })` removes them. Without it they belong to the space.
   */
  agentId?: string | undefined;
}

const VALUE_MARK = 'langchain-kv';
const INDEX_MARK = 'langchain-kv-index';
const FORMAT = 1;
/** Buckets of the key index: the first hex digit of the key's sha-256. */
const BUCKETS = '0123456789abcdef';
const MAX_SESSION_ID = 200;
/** The longest key taken (a key index bucket holds at most 1 MiB by default). */
export const MAX_KEY_LENGTH = 1024;
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
/** What a session id may not hold as is (the port refuses control characters and outer spaces): escaped as %XX. */
const ESCAPED = /[%\s\p{Cc}\p{Z}]/gu;
const LONE_SURROGATE = /\p{Cs}/u;
/** Index updates verified and retried this many times against writers in other processes. */
const INDEX_ATTEMPTS = 3;

const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const encoder = new TextEncoder();
const escapeKey = (key: string) =>
  key.replace(ESCAPED, (ch) =>
    [...encoder.encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );

/** Index updates of one process, serialised per port, space and root (several stores on one namespace share it). */
const locks = new WeakMap<object, Map<string, Promise<unknown>>>();

function withLock<R>(port: object, name: string, fn: () => Promise<R>): Promise<R> {
  let byName = locks.get(port);
  if (!byName) {
    byName = new Map();
    locks.set(port, byName);
  }
  const before = byName.get(name) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const tail = run.catch(() => {});
  byName.set(name, tail);
  void tail.then(() => {
    if (byName.get(name) === tail) byName.delete(name);
  });
  return run;
}

type Encoded = { id: string; bucket: string; record: JsonValue };

/**
 * A LangChain key-value store (`mget`, `mset`, `mdelete`, `yieldKeys`) on mem's session-state store. Values are JSON
 * values or `Uint8Array`s (kept as base64, returned as `Uint8Array`), so it serves `CacheBackedEmbeddings` and
 * `createDocumentStoreFromByteStore` as well as plain JSON caches.
 */
export class MemKeyValueStore<T = unknown> extends BaseStore<string, T> {
  lc_namespace = ['mem', 'langchain', 'stores'];

  readonly space: string;
  readonly namespace: string;
  /** The session-id prefix of every value and index document of this store. */
  readonly root: string;
  private readonly port: SessionStateStore;
  private readonly lockKey: object;
  private readonly now: () => string;

  constructor(options: MemKeyValueStoreOptions) {
    super();
    if (!options || typeof options !== 'object') {
      throw new MemError(
        'INVALID_INPUT',
        'new MemKeyValueStore needs { stack, space }: a mem stack with structured stores (createSqliteStores, createPostgresStores, createInMemoryStructuredStores) and the space.',
      );
    }
    const given = options.stack ? options.stack.structured.sessionState : options.sessionState;
    if (!given) {
      throw new MemError(
        'CAPABILITY_MISSING',
        options.stack
          ? 'MemKeyValueStore keeps its values in the session-state store, and this stack has none: build it with createSqliteStores, createPostgresStores or createInMemoryStructuredStores().'
          : 'new MemKeyValueStore needs `stack` (createStack(...) with structured stores) or `sessionState` (a session-state store).',
        { details: { port: 'sessionState' } },
      );
    }
    checkName(options.space, 'space');
    const namespace = options.namespace ?? 'default';
    if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
      throw new MemError(
        'INVALID_INPUT',
        `MemKeyValueStore: namespace ${JSON.stringify(namespace)?.slice(0, 80)} is not valid: use 1–64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (e.g. "embeddings" or "docs:v2").`,
      );
    }
    if (options.agentId !== undefined) checkName(options.agentId, 'agent');
    this.space = options.space;
    this.namespace = namespace;
    this.root =
      options.agentId === undefined ? `.langchain-kv/${namespace}/` : `${options.agentId}/langchain-kv/${namespace}/`;
    this.lockKey = given;
    this.port = guardSessionStateStore(given);
    const clock = options.stack?.clock;
    this.now = () => (clock ? clock.now() : new Date()).toISOString();
  }

  /** The session id of a key's value. */
  private valueId(key: string): string {
    const id = `${this.root}v/${escapeKey(key)}`;
    return id.length <= MAX_SESSION_ID ? id : `${this.root}h/${sha256(key)}`;
  }

  private bucketId(key: string): string {
    return `${this.root}i/${sha256(key)[0]}`;
  }

  async mget(keys: string[]): Promise<(T | undefined)[]> {
    checkKeys(keys, 'mget');
    return Promise.all(
      keys.map(async (key) => {
        const id = this.valueId(key);
        const row = await this.port.get(this.space, id);
        return row ? (decodeValue(row.state, key, id) as T | undefined) : undefined;
      }),
    );
  }

  async mset(keyValuePairs: [string, T][]): Promise<void> {
    if (!Array.isArray(keyValuePairs))
      throw new MemError(
        'INVALID_INPUT',
        'mset takes an array of [key, value] pairs, e.g. [["user:1", { name: "Ana" }]].',
      );
    // Every pair is checked before anything is written; for a key given twice the last value wins.
    const encoded = new Map<string, Encoded>();
    for (const [i, pair] of keyValuePairs.entries()) {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new MemError('INVALID_INPUT', `mset: pair ${i} is not a [key, value] pair (got ${describe(pair)}).`);
      const [key, value] = pair;
      checkKey(key, `mset: pair ${i}`);
      encoded.set(key, { id: this.valueId(key), bucket: this.bucketId(key), record: encodeValue(key, value, i) });
    }
    if (encoded.size === 0) return;
    const at = this.now();
    for (const [key, e] of encoded) {
      try {
        await this.port.set(this.space, e.id, e.record, at);
      } catch (error) {
        if (MemError.is(error, 'TOO_LARGE'))
          throw new MemError(
            'TOO_LARGE',
            `mset: the value of key ${JSON.stringify(key.slice(0, 80))} is too large. ${error.message}`,
            {
              cause: error,
              details: { key: key.slice(0, 200) },
            },
          );
        throw error;
      }
    }
    await this.updateIndex(
      [...encoded.entries()].map(([key, e]) => [key, e.bucket]),
      'add',
    );
  }

  async mdelete(keys: string[]): Promise<void> {
    checkKeys(keys, 'mdelete');
    const unique = [...new Set(keys)];
    for (const key of unique) await this.port.delete(this.space, this.valueId(key));
    await this.updateIndex(
      unique.map((key) => [key, this.bucketId(key)]),
      'remove',
    );
  }

  /** The keys (those starting with `prefix`, when given), in code-unit order. */
  async *yieldKeys(prefix?: string): AsyncGenerator<string> {
    if (prefix !== undefined && typeof prefix !== 'string')
      throw new MemError('INVALID_INPUT', `yieldKeys: prefix must be a string, got ${describe(prefix)}.`);
    const all: string[] = [];
    for (const b of BUCKETS) {
      for (const key of await this.readIndex(`${this.root}i/${b}`)) {
        if (prefix === undefined || key.startsWith(prefix)) all.push(key);
      }
    }
    all.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    yield* all;
  }

  /** Delete every key of this store (its values and its index) in one prefix delete; returns the documents removed. */
  async clear(): Promise<number> {
    return withLock(this.lockKey, `${this.space}\u0000${this.root}`, () =>
      this.port.deleteSessions(this.space, this.root),
    );
  }

  private async readIndex(id: string): Promise<Set<string>> {
    const row = await this.port.get(this.space, id);
    if (!row) return new Set();
    const s = row.state as { $mem?: unknown; keys?: unknown } | null;
    if (
      !s ||
      typeof s !== 'object' ||
      s.$mem !== INDEX_MARK ||
      !Array.isArray(s.keys) ||
      s.keys.some((k) => typeof k !== 'string')
    )
      throw new MemError(
        'STORE_CORRUPT',
        `The key index "${id}" in space "${this.space}" is not a MemKeyValueStore index (it was changed outside the store). Delete it (its keys are listed again as they are set) or restore it.`,
        { details: { sessionId: id } },
      );
    return new Set(s.keys as string[]);
  }

  /**
   * Add keys to (or remove them from) their index buckets, after their values were written. Serialised in this
   * process; against other processes each bucket is read back after the write and merged again when another writer's
   * update replaced it (up to 3 times).
   */
  private updateIndex(entries: [string, string][], op: 'add' | 'remove'): Promise<void> {
    const byBucket = new Map<string, string[]>();
    for (const [key, bucket] of entries) {
      const list = byBucket.get(bucket) ?? [];
      list.push(key);
      byBucket.set(bucket, list);
    }
    return withLock(this.lockKey, `${this.space}\u0000${this.root}`, async () => {
      for (const [bucket, keys] of byBucket) {
        for (let attempt = 1; attempt <= INDEX_ATTEMPTS; attempt++) {
          const current = await this.readIndex(bucket);
          const next = new Set(current);
          for (const k of keys) {
            if (op === 'add') next.add(k);
            else next.delete(k);
          }
          if (next.size === current.size && [...next].every((k) => current.has(k))) break;
          if (next.size === 0) await this.port.delete(this.space, bucket);
          else {
            const sorted = [...next].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
            await this.port.set(this.space, bucket, { $mem: INDEX_MARK, v: FORMAT, keys: sorted }, this.now());
          }
          const after = await this.readIndex(bucket);
          if (keys.every((k) => after.has(k) === (op === 'add'))) break;
        }
      }
    });
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'null-prototype'} object`;
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

function checkKey(key: unknown, where: string): asserts key is string {
  if (typeof key !== 'string' || key.length === 0)
    throw new MemError('INVALID_INPUT', `${where}: a key is a non-empty string, got ${describe(key)}.`);
  if (key.length > MAX_KEY_LENGTH)
    throw new MemError(
      'INVALID_INPUT',
      `${where}: the key is ${key.length} characters long; MemKeyValueStore keys hold at most ${MAX_KEY_LENGTH} (hash a longer key first).`,
    );
  if (LONE_SURROGATE.test(key))
    throw new MemError(
      'INVALID_INPUT',
      `${where}: the key is not valid Unicode (it holds a lone surrogate, e.g. half of an emoji), so it cannot be stored unchanged.`,
    );
}

function checkKeys(keys: unknown, op: string): asserts keys is string[] {
  if (!Array.isArray(keys))
    throw new MemError('INVALID_INPUT', `${op} takes an array of keys (strings), got ${describe(keys)}.`);
  for (const [i, key] of keys.entries()) checkKey(key, `${op}: key ${i}`);
}

function encodeValue(key: string, value: unknown, i: number): JsonValue {
  if (value instanceof Uint8Array) {
    const base64 = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
    return { $mem: VALUE_MARK, v: FORMAT, key, base64 };
  }
  if (value === undefined)
    throw new MemError(
      'INVALID_INPUT',
      `mset: the value of pair ${i} (key ${JSON.stringify(key.slice(0, 80))}) is undefined; use mdelete to remove a key.`,
    );
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
    throw new MemError(
      'INVALID_INPUT',
      `mset: the value of pair ${i} (key ${JSON.stringify(key.slice(0, 80))}) is ${describe(value)}; bytes are stored as a Uint8Array (new Uint8Array(view.buffer, view.byteOffset, view.byteLength)).`,
    );
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined || !sameJson(JSON.parse(json), value))
    throw new MemError(
      'INVALID_INPUT',
      `mset: the value of pair ${i} (key ${JSON.stringify(key.slice(0, 80))}) must be plain JSON (strings, finite numbers, booleans, null, arrays, plain objects) or a Uint8Array; it is or holds something JSON cannot keep (undefined, a function, a Date, NaN, a Map, a class instance, bytes inside an object…). Convert it first (e.g. JSON.parse(JSON.stringify(value)), or encode it to a Uint8Array).`,
    );
  return { $mem: VALUE_MARK, v: FORMAT, key, value: value as JsonValue };
}

function decodeValue(state: JsonValue, key: string, id: string): unknown {
  const s = state as { $mem?: unknown; key?: unknown; value?: unknown; base64?: unknown } | null;
  if (!s || typeof s !== 'object' || Array.isArray(s) || s.$mem !== VALUE_MARK || typeof s.key !== 'string')
    throw new MemError(
      'STORE_CORRUPT',
      `The session state "${id}" is not a MemKeyValueStore value (it was changed outside the store). Delete it with mdelete([${JSON.stringify(key.slice(0, 80))}]) or restore it.`,
      { details: { sessionId: id } },
    );
  // A long key's value is found by its hash: the key stored with it tells whether it is this key's.
  if (s.key !== key) return undefined;
  if (typeof s.base64 === 'string') return new Uint8Array(Buffer.from(s.base64, 'base64'));
  return 'value' in s ? s.value : undefined;
}
