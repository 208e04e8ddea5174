/**
 * `MemCheckpointSaver`: a LangGraph.js checkpointer on mem's session-state store (docs in README.md, the layout in
 * checkpointer-rows.ts). A graph compiled with it keeps its threads in whatever store the mem stack uses — one
 * SQLite file, or PostgreSQL through the same SQL — so a thread survives a restart and another process continues it.
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import { checkName, type JsonValue, MemError, type Stack } from '@mem/core';
import {
  type BlobDoc,
  type CheckpointDoc,
  Documents,
  fromStored,
  type IndexDoc,
  ids,
  type Locks,
  locksOf,
  type StoredWrite,
  type ThreadsDoc,
  toStored,
  type WritesDoc,
} from './checkpointer-rows.js';

export interface MemCheckpointSaverOptions {
  /** The mem stack whose session-state store keeps the checkpoints (`createSqliteStores`, `createPostgresStores`, …). */
  stack: Stack;
  /** The mem space the threads live in (mem name rules). Threads of one space never see those of another. */
  space: string;
  /** LangGraph's serializer for checkpoints and writes (default: LangGraph's `JsonPlusSerializer`). */
  serde?: SerializerProtocol;
  /**
   * Largest document written in one piece, in bytes of JSON (default 512 KiB, at least 1 KiB): a bigger checkpoint,
   * channel value or set of writes is split into pieces of at most this size. Keep it under the stack's
   * `structuredLimits.stateBytes` (1 MiB by default).
   */
  chunkBytes?: number;
}

type Configurable = Record<string, unknown>;
const configurable = (config: RunnableConfig | undefined): Configurable => (config?.configurable ?? {}) as Configurable;

/** A thread id from the config: a string (a number is taken as its decimal string), undefined when absent. */
function threadOf(config: RunnableConfig | undefined, op: string, required: boolean): string | undefined {
  const value = configurable(config).thread_id;
  if (value === undefined || value === null) {
    if (!required) return undefined;
    throw new MemError(
      'INVALID_INPUT',
      `MemCheckpointSaver.${op}: the config has no configurable.thread_id. Run the graph with a thread: graph.invoke(input, { configurable: { thread_id: "my-thread" } }).`,
    );
  }
  return idOf(value, 'thread_id', op);
}

function idOf(value: unknown, field: string, op: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.length === 0) {
    throw new MemError(
      'INVALID_INPUT',
      `MemCheckpointSaver.${op}: ${field} must be a non-empty string, got ${value === '' ? 'an empty string' : typeof value}.`,
      { details: { field } },
    );
  }
  return value;
}

function nsOf(config: RunnableConfig | undefined, op: string): string {
  const ns = configurable(config).checkpoint_ns ?? '';
  if (typeof ns !== 'string') {
    throw new MemError('INVALID_INPUT', `MemCheckpointSaver.${op}: checkpoint_ns must be a string, got ${typeof ns}.`);
  }
  return ns;
}

/** Set an own property (a channel may be called `__proto__`). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Configurable)[k], (b as Configurable)[k]));
}

const configFor = (thread: string, ns: string, id: string): RunnableConfig => ({
  configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id },
});

const RECENT = 64;

/**
 * A LangGraph `BaseCheckpointSaver` over mem's session-state store, scoped by a mem space. Checkpoints, their
 * pending writes and each channel's value (written once per change, then shared by the checkpoints that did not
 * change it) are JSON documents; serialised bytes are kept in base64.
 */
export class MemCheckpointSaver extends BaseCheckpointSaver {
  readonly space: string;
  private readonly docs: Documents;
  private readonly locks: Locks;
  /** The channel map of checkpoints put lately, so the next put need not read its parent. */
  private readonly recent = new Map<string, CheckpointDoc['channels']>();

  constructor(options: MemCheckpointSaverOptions) {
    if (!options || typeof options !== 'object' || !options.stack || typeof options.stack !== 'object') {
      throw new MemError(
        'INVALID_INPUT',
        'new MemCheckpointSaver needs { stack, space }: the stack createStack returned (with structured stores, e.g. createSqliteStores) and the mem space the threads live in.',
      );
    }
    super(options.serde);
    const space = checkName(options.space, 'space');
    const store = options.stack.structured?.sessionState;
    if (!store) {
      throw new MemError(
        'CAPABILITY_MISSING',
        "MemCheckpointSaver keeps checkpoints in the stack's session-state store, and this stack has none: build the stack with structured stores — createStack({ stores: createSqliteStores({ path }) }) from @mem/store-sqlite, createPostgresStores from @mem/store-postgres, or createStack({ structured: createInMemoryStructuredStores() }) for tests.",
        { details: { port: 'sessionState' } },
      );
    }
    const chunkBytes = options.chunkBytes ?? 512 * 1024;
    if (!Number.isInteger(chunkBytes) || chunkBytes < 1024) {
      throw new MemError(
        'INVALID_INPUT',
        `chunkBytes must be a whole number of bytes, at least 1024, got ${JSON.stringify(options.chunkBytes)}.`,
      );
    }
    const clock = options.stack.clock;
    this.space = space;
    this.docs = new Documents(store, space, chunkBytes, () => (clock?.now() ?? new Date()).toISOString());
    this.locks = locksOf(store);
  }

  private lock<T>(thread: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(`${this.space}\u0000t\u0000${thread}`, fn);
  }

  private lockThreads<T>(fn: () => Promise<T>): Promise<T> {
    return this.locks.run(`${this.space}\u0000threads`, fn);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const thread = threadOf(config, 'getTuple', false);
    if (thread === undefined) return undefined;
    const ns = nsOf(config, 'getTuple');
    const wanted = getCheckpointId(config);
    return this.lock(thread, async () => {
      let id: string | undefined = wanted ? idOf(wanted, 'checkpoint_id', 'getTuple') : undefined;
      if (!id) {
        const index = await this.docs.read<IndexDoc>(ids.index(thread));
        id = index?.namespaces.find((n) => n.ns === ns)?.ids.at(-1);
        if (!id) return undefined;
      }
      const doc = await this.docs.read<CheckpointDoc>(ids.checkpoint(thread, ns, id));
      return doc ? this.tuple(thread, ns, doc) : undefined;
    });
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, limit, filter } = options ?? {};
    const thread = threadOf(config, 'list', false);
    const c = configurable(config);
    const wantedNs = c.checkpoint_ns === undefined ? undefined : nsOf(config, 'list');
    const wantedId = c.checkpoint_id ? idOf(c.checkpoint_id, 'checkpoint_id', 'list') : undefined;
    const beforeId = before?.configurable?.checkpoint_id
      ? idOf(before.configurable.checkpoint_id, 'before.checkpoint_id', 'list')
      : undefined;
    const filters = Object.entries(filter ?? {});
    let remaining = limit;
    const threads =
      thread !== undefined
        ? [thread]
        : ((await this.lockThreads(() => this.docs.read<ThreadsDoc>(ids.threads())))?.threads ?? []);
    for (const t of threads) {
      const index = await this.lock(t, () => this.docs.read<IndexDoc>(ids.index(t)));
      for (const { ns, ids: checkpointIds } of index?.namespaces ?? []) {
        if (wantedNs !== undefined && ns !== wantedNs) continue;
        for (let i = checkpointIds.length - 1; i >= 0; i--) {
          const id = checkpointIds[i]!;
          if (wantedId !== undefined && id !== wantedId) continue;
          if (beforeId !== undefined && id >= beforeId) continue;
          const tuple = await this.lock(t, async () => {
            const doc = await this.docs.read<CheckpointDoc>(ids.checkpoint(t, ns, id));
            if (!doc) return undefined;
            const metadata = (await this.serde.loadsTyped(
              doc.metadata.t,
              fromStored(doc.metadata),
            )) as CheckpointMetadata;
            const m = (metadata ?? {}) as Record<string, unknown>;
            if (!filters.every(([k, v]) => deepEqual(m[k], v))) return undefined;
            return this.tuple(t, ns, doc, metadata);
          });
          if (!tuple) continue;
          if (remaining !== undefined) {
            if (remaining <= 0) return;
            remaining -= 1;
          }
          yield tuple;
        }
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const thread = threadOf(config, 'put', true)!;
    const ns = nsOf(config, 'put');
    const parentRaw = configurable(config).checkpoint_id;
    const parent = parentRaw ? idOf(parentRaw, 'checkpoint_id', 'put') : null;
    if (!checkpoint || typeof checkpoint !== 'object') {
      throw new MemError('INVALID_INPUT', 'MemCheckpointSaver.put: the checkpoint must be an object.');
    }
    const id = idOf(checkpoint.id, 'checkpoint.id', 'put');
    const copy = copyCheckpoint(checkpoint);
    const values = (copy.channel_values ?? {}) as Record<string, unknown>;
    const versions = (copy.channel_versions ?? {}) as Record<string, unknown>;
    const changed = Object.keys(newVersions ?? {});
    // Serialise outside the lock: the channels this checkpoint changed, the checkpoint without values, the metadata.
    const blobs = new Map<string, BlobDoc | null>();
    for (const ch of changed) {
      blobs.set(
        ch,
        Object.hasOwn(values, ch) && values[ch] !== undefined
          ? { v: 1, channel: ch, value: toStored(await this.serde.dumpsTyped(values[ch])) }
          : null,
      );
    }
    const stored = toStored(await this.serde.dumpsTyped({ ...copy, channel_values: {} }));
    const meta = toStored(await this.serde.dumpsTyped(metadata ?? {}));
    await this.lock(thread, async () => {
      const inherited = parent ? await this.channelsOf(thread, ns, parent) : new Map<string, string | null>();
      const channels: CheckpointDoc['channels'] = [];
      const seen = new Set<string>();
      for (const ch of [...changed, ...Object.keys(versions)]) {
        if (seen.has(ch)) continue;
        seen.add(ch);
        if (blobs.has(ch)) {
          const blob = blobs.get(ch)!;
          if (blob) await this.docs.write(ids.blob(thread, ns, ch, id), blob as unknown as JsonValue, null);
          channels.push([ch, blob ? id : null]);
        } else {
          channels.push([ch, inherited.get(ch) ?? null]);
        }
      }
      const doc: CheckpointDoc = { v: 1, id, parent, checkpoint: stored, metadata: meta, channels };
      await this.docs.write(ids.checkpoint(thread, ns, id), doc as unknown as JsonValue, null);
      // The index last: it never names a checkpoint that is not there.
      const indexId = ids.index(thread);
      const { value: index, raw: previous } = await this.docs.load<IndexDoc>(indexId);
      if (index === null) await this.register(thread);
      const next: IndexDoc = index ?? { v: 1, thread, namespaces: [] };
      let entry = next.namespaces.find((n) => n.ns === ns);
      if (!entry) {
        entry = { ns, ids: [] };
        next.namespaces.push(entry);
      }
      if (insertSorted(entry.ids, id) || index === null) {
        await this.docs.write(indexId, next as unknown as JsonValue, previous);
      }
      this.remember(thread, ns, id, channels);
    });
    return configFor(thread, ns, id);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const thread = threadOf(config, 'putWrites', true)!;
    const ns = nsOf(config, 'putWrites');
    const rawId = configurable(config).checkpoint_id;
    if (!rawId) {
      throw new MemError(
        'INVALID_INPUT',
        'MemCheckpointSaver.putWrites: the config has no configurable.checkpoint_id (the checkpoint the writes belong to).',
      );
    }
    const id = idOf(rawId, 'checkpoint_id', 'putWrites');
    const task = idOf(taskId, 'taskId', 'putWrites');
    if (!Array.isArray(writes))
      throw new MemError('INVALID_INPUT', 'MemCheckpointSaver.putWrites: writes must be a list.');
    const fresh: StoredWrite[] = [];
    for (const [i, [channel, value]] of writes.entries()) {
      fresh.push({
        task,
        idx: Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel]! : i,
        channel,
        path: taskPath ?? '',
        value: toStored(await this.serde.dumpsTyped(value)),
      });
    }
    await this.lock(thread, async () => {
      const docId = ids.writes(thread, ns, id);
      const { value, raw: previous } = await this.docs.load<WritesDoc>(docId);
      const doc: WritesDoc = value ?? { v: 1, writes: [] };
      const at = new Map(doc.writes.map((w, i) => [`${w.task},${w.idx}`, i]));
      let changed = false;
      for (const w of fresh) {
        const key = `${w.task},${w.idx}`;
        const existing = at.get(key);
        // As LangGraph's savers: a regular write is kept once; a special one (error, interrupt…) is replaced.
        if (existing !== undefined && w.idx >= 0) continue;
        if (existing !== undefined) doc.writes[existing] = w;
        else {
          at.set(key, doc.writes.length);
          doc.writes.push(w);
        }
        changed = true;
      }
      if (changed) await this.docs.write(docId, doc as unknown as JsonValue, previous);
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    const thread = idOf(threadId, 'threadId', 'deleteThread');
    await this.lock(thread, async () => {
      await this.docs.deletePrefix(ids.threadPrefix(thread));
      for (const key of [...this.recent.keys()]) if (key.startsWith(`${thread}\u0000`)) this.recent.delete(key);
      await this.lockThreads(async () => {
        const { value: doc, raw: previous } = await this.docs.load<ThreadsDoc>(ids.threads());
        if (!doc?.threads.includes(thread)) return;
        const next: ThreadsDoc = { v: 1, threads: doc.threads.filter((t) => t !== thread) };
        await this.docs.write(ids.threads(), next as unknown as JsonValue, previous);
      });
    });
  }

  /** Add a thread to the space's thread list (for `list` without a thread_id). */
  private register(thread: string): Promise<void> {
    return this.lockThreads(async () => {
      const { value, raw: previous } = await this.docs.load<ThreadsDoc>(ids.threads());
      const doc: ThreadsDoc = value ?? { v: 1, threads: [] };
      if (doc.threads.includes(thread)) return;
      doc.threads.push(thread);
      await this.docs.write(ids.threads(), doc as unknown as JsonValue, previous);
    });
  }

  private remember(thread: string, ns: string, id: string, channels: CheckpointDoc['channels']): void {
    const key = `${thread}\u0000${ns}\u0000${id}`;
    this.recent.delete(key);
    this.recent.set(key, channels);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value!);
  }

  /** Which checkpoint's blob holds each channel of checkpoint `id` (empty when that checkpoint is not stored). */
  private async channelsOf(thread: string, ns: string, id: string): Promise<Map<string, string | null>> {
    const cached = this.recent.get(`${thread}\u0000${ns}\u0000${id}`);
    const channels = cached ?? (await this.docs.read<CheckpointDoc>(ids.checkpoint(thread, ns, id)))?.channels ?? [];
    return new Map(channels);
  }

  private async writesOf(thread: string, ns: string, id: string): Promise<StoredWrite[]> {
    const doc = await this.docs.read<WritesDoc>(ids.writes(thread, ns, id));
    return (doc?.writes ?? [])
      .map((w) => ({ w, key: writesSortKey(w.path, w.task, w.idx) }))
      .sort((a, b) => compareWritesSortKeys(a.key, b.key))
      .map(({ w }) => w);
  }

  private async tuple(
    thread: string,
    ns: string,
    doc: CheckpointDoc,
    metadata?: CheckpointMetadata,
  ): Promise<CheckpointTuple> {
    const checkpoint = (await this.serde.loadsTyped(doc.checkpoint.t, fromStored(doc.checkpoint))) as Checkpoint;
    const values: Record<string, unknown> = {};
    for (const [ch, source] of doc.channels) {
      if (source === null) continue;
      const blob = await this.docs.read<BlobDoc>(ids.blob(thread, ns, ch, source));
      if (!blob) {
        throw new MemError(
          'STORE_CORRUPT',
          `The value of channel "${ch}" of LangGraph thread "${thread}" (written by checkpoint ${source}) is missing from space ${this.space}.`,
          { details: { thread, checkpointNs: ns, channel: ch, checkpoint: source } },
        );
      }
      setOwn(values, ch, await this.serde.loadsTyped(blob.value.t, fromStored(blob.value)));
    }
    checkpoint.channel_values = values;
    if (checkpoint.v < 4 && doc.parent !== null) {
      // Checkpoints before format 4 kept sends as writes of the parent: move them into the TASKS channel.
      const sends = (await this.writesOf(thread, ns, doc.parent)).filter((w) => w.channel === TASKS);
      setOwn(values, TASKS, await Promise.all(sends.map((w) => this.serde.loadsTyped(w.value.t, fromStored(w.value)))));
      checkpoint.channel_versions ??= {};
      const known = Object.values(checkpoint.channel_versions);
      setOwn(
        checkpoint.channel_versions,
        TASKS,
        known.length > 0 ? maxChannelVersion(...known) : this.getNextVersion(undefined),
      );
    }
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      (await this.writesOf(thread, ns, doc.id)).map(
        async (w): Promise<CheckpointPendingWrite> => [
          w.task,
          w.channel,
          await this.serde.loadsTyped(w.value.t, fromStored(w.value)),
        ],
      ),
    );
    const tuple: CheckpointTuple = {
      config: configFor(thread, ns, doc.id),
      checkpoint,
      metadata:
        metadata ?? ((await this.serde.loadsTyped(doc.metadata.t, fromStored(doc.metadata))) as CheckpointMetadata),
      pendingWrites,
    };
    if (doc.parent !== null) tuple.parentConfig = configFor(thread, ns, doc.parent);
    return tuple;
  }
}

/** Insert `id` into the ascending list; false when it was there already. */
function insertSorted(list: string[], id: string): boolean {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] === id) return false;
  list.splice(lo, 0, id);
  return true;
}
