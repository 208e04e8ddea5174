import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import * as lancedb from '@lancedb/lancedb';
import { MemError } from '@mem/core';
import { PRIVATE_DIR_MODE, wrapStoreError } from '@mem/core/adapter';
import { FileLock, withProcessMutex } from './lock.js';
import { CPU_THREADS_VAR, cpuThreadsWarning, ensureCpuThreads } from './native-runtime.js';
import type { BackgroundSettings, LanceStoreOptions } from './options.js';
import type { arrow } from './schema.js';
import type { ManagedTable } from './upkeep.js';

export const ADAPTER = 'lancedb';

/** How many upkeep delays a pending index upkeep may be pushed back by writes that keep coming. */
const UPKEEP_MAX_WAIT = 10;

/**
 * Open a table the folder lists. A process killed while creating a table can leave its folder without any version
 * (no `_versions`): LanceDB lists the table but cannot open it, and every call of the port failed. Such a table never
 * committed, so it holds nothing anyone was told is stored: it is created again, empty. Any other failure is thrown.
 */
async function openOrRecreate(conn: lancedb.Connection, spec: TableSpec): Promise<lancedb.Table> {
  try {
    const table = await conn.openTable(spec.name);
    await table.version();
    return table;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!/_versions/.test(message) || !/not found/i.test(message)) throw error;
    return conn.createEmptyTable(spec.name, spec.schema, { mode: 'overwrite' });
  }
}

/** Whether a store of this process already warned about LanceDB's compute threads (see `cpuThreadsWarning`). */
let warnedCpuThreads = false;

export const isObjectStorage = (uri: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) && !uri.startsWith('file://');

function localPath(uri: string): string {
  return uri.startsWith('file://') ? fileURLToPath(uri) : resolve(uri);
}

/** A table a port needs: created when missing, refused when it is not one of ours. */
export interface TableSpec {
  name: string;
  schema: InstanceType<typeof arrow.Schema>;
  /** What the table holds, for messages: "knowledge", "episode", "procedure". */
  kind: string;
  /** The option naming it, for messages: "tableNames.chunks". */
  option: string;
  /** Columns an existing table must have (else STORE_CORRUPT). */
  required?: readonly string[];
  /**
   * A schema version kept in the table's schema metadata under `key`: written on creation, and a table with a
   * higher version (written by a newer package) is refused.
   */
  version?: { key: string; value: number };
}

/**
 * One LanceDB connection to a folder or object-storage URI, shared by the ports built on it: tables opened (and
 * created) on first use, the write lock (an in-process FIFO queue per folder, then a lock file in the folder), and
 * leases — every port holds one, and the connection closes with the last.
 */
export class LanceDatabase {
  readonly uri: string;
  readonly folder: string | null;
  private readonly lock: FileLock | null;
  private readonly mutexName: string;
  private connecting: Promise<lancedb.Connection> | null = null;
  private readonly tables = new Map<string, Promise<lancedb.Table>>();
  private leases = 0;
  private closed = false;

  constructor(private readonly options: LanceStoreOptions) {
    // Before this store's first LanceDB call: LanceDB sizes its compute pool once per process (see native-runtime.ts).
    const threads = ensureCpuThreads();
    const warning = cpuThreadsWarning(threads, isMainThread);
    if (warning !== null && !warnedCpuThreads) {
      warnedCpuThreads = true;
      options.logger?.warn(`${ADAPTER}: ${warning}`, { field: CPU_THREADS_VAR, threads: threads.threads });
    }
    this.uri = options.uri;
    this.folder = isObjectStorage(options.uri) ? null : localPath(options.uri);
    this.lock =
      this.folder !== null && options.lock !== false
        ? new FileLock(join(this.folder, '.mem-write.lock'), options.lock || {})
        : null;
    this.mutexName = `lancedb:${this.folder ?? this.uri}`;
  }

  /** The write lock: one writer at a time in this process, then across processes through the lock file. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return withProcessMutex(this.mutexName, async () => {
      const release = this.lock ? await this.lock.acquire() : null;
      try {
        return await fn();
      } finally {
        await release?.();
      }
    });
  }

  private connection(): Promise<lancedb.Connection> {
    if (this.closed) return Promise.reject(new MemError('STORE_UNAVAILABLE', `${ADAPTER}: ${this.uri} is closed.`));
    this.connecting ??= (async () => {
      if (this.folder !== null) mkdirSync(this.folder, { recursive: true, mode: PRIVATE_DIR_MODE });
      return lancedb.connect(this.uri, {
        readConsistencyInterval: this.options.readConsistencyIntervalSeconds ?? 0,
        ...(this.options.storageOptions ? { storageOptions: this.options.storageOptions } : {}),
      });
    })().catch((error: unknown) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  /** Open the tables (creating missing ones under the write lock), each once per connection; then check them. */
  async openTables(specs: readonly TableSpec[]): Promise<lancedb.Table[]> {
    const missing = specs.filter((s) => !this.tables.has(s.name));
    if (missing.length > 0) {
      const batch = this.connection().then((conn) =>
        this.exclusive(async () => {
          const existing = new Set(await conn.tableNames());
          const opened = new Map<string, lancedb.Table>();
          for (const spec of missing) {
            opened.set(
              spec.name,
              existing.has(spec.name)
                ? await openOrRecreate(conn, spec)
                : await conn.createEmptyTable(spec.name, spec.schema, { mode: 'create', existOk: true }),
            );
          }
          return opened;
        }),
      );
      for (const spec of missing) {
        const table = batch.then((opened) => opened.get(spec.name)!);
        this.tables.set(spec.name, table);
        table.catch(() => {
          if (this.tables.get(spec.name) === table) this.tables.delete(spec.name);
        });
      }
    }
    const tables = await Promise.all(specs.map((s) => this.tables.get(s.name)!));
    for (const [i, spec] of specs.entries()) await this.check(tables[i]!, spec);
    return tables;
  }

  private async check(table: lancedb.Table, spec: TableSpec): Promise<void> {
    const schema = await table.schema();
    const columns = new Set(schema.fields.map((f) => f.name));
    const missing = (spec.required ?? []).filter((c) => !columns.has(c));
    if (missing.length > 0) {
      throw new MemError(
        'STORE_CORRUPT',
        `${ADAPTER}: table ${spec.name} in ${this.uri} is not a mem ${spec.kind} table (missing columns: ${missing.join(', ')}). Use another folder or another table name (${spec.option}).`,
      );
    }
    if (spec.version) {
      const stored = Number(schema.metadata.get(spec.version.key) ?? 0);
      if (stored > spec.version.value) {
        throw new MemError(
          'STORE_UNAVAILABLE',
          `${ADAPTER}: table ${spec.name} in ${this.uri} has ${spec.kind} schema version ${stored}, newer than this @mem/store-lancedb understands (${spec.version.value}). Upgrade the package.`,
        );
      }
    }
  }

  acquire(): void {
    this.leases += 1;
  }

  /** Give a lease back; the last one closes every table and the connection. */
  async release(): Promise<void> {
    this.leases -= 1;
    if (this.leases > 0 || this.closed) return;
    this.closed = true;
    const tables = await Promise.allSettled([...this.tables.values()]);
    const conn = this.connecting ? await this.connecting.catch(() => null) : null;
    this.tables.clear();
    this.connecting = null;
    try {
      for (const t of tables) if (t.status === 'fulfilled') t.value.close();
      conn?.close();
    } catch (error) {
      throw wrapStoreError(ADAPTER, error, 'close');
    }
  }
}

/**
 * What every port of the package does around its calls: open its tables once (on first use), refuse calls after
 * `close()`, wrap driver errors as `STORE_UNAVAILABLE` (prefix `lancedb:`), run writes under the database's write
 * lock followed by index upkeep of the tables they changed, and let `close()` wait for calls in flight.
 */
export class PortRunner<T> {
  private opening: Promise<T> | null = null;
  private opened: T | null = null;
  private closed = false;
  private readonly pending = new Set<Promise<unknown>>();
  /** Commits that changed rows since the last background compaction. */
  private commitsSinceCompaction = 0;
  private compacting = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Tables written since their last index upkeep, and that upkeep's timer and turn. */
  private readonly dirty = new Map<string, ManagedTable>();
  private upkeepTimer: ReturnType<typeof setTimeout> | null = null;
  private upkeepRunning: Promise<void> | null = null;
  /** When the first write that the pending upkeep owes to committed (ms since the epoch). */
  private upkeepOwedSince = 0;

  constructor(
    readonly db: LanceDatabase,
    private readonly open: () => Promise<T>,
    private readonly upkeep: {
      auto: boolean;
      logger?: LanceStoreOptions['logger'];
      /** How long index upkeep waits after a write for more writes to share it (ms). */
      delayMs?: number;
      /** Every table of the port, for the background compaction. */
      tables?: (t: T) => readonly ManagedTable[];
      background?: BackgroundSettings | false;
    },
  ) {
    db.acquire();
  }

  /** True once `close()` was called: new calls are refused. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** The port's tables, opened on first use. */
  ready(): Promise<T> {
    if (this.closed) {
      return Promise.reject(
        new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${this.db.uri} is closed; create a new one.`),
      );
    }
    if (this.opened) return Promise.resolve(this.opened);
    this.opening ??= this.open().then(
      (t) => {
        this.opened = t;
        return t;
      },
      (error: unknown) => {
        this.opening = null;
        throw error;
      },
    );
    return this.opening;
  }

  /** The opened tables, or null before the first call opened them. */
  get current(): T | null {
    return this.opened;
  }

  private track<R>(promise: Promise<R>): Promise<R> {
    this.pending.add(promise);
    const done = () => this.pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  read<R>(what: string, fn: (t: T) => Promise<R>): Promise<R> {
    return this.track(
      (async () => {
        try {
          return await fn(await this.ready());
        } catch (error) {
          throw wrapStoreError(ADAPTER, error, what);
        }
      })(),
    );
  }

  /**
   * A write critical section under the lock. The tables `maintain` names get their index upkeep (unless
   * `maintenance.auto` is off) in a turn of their own, `upkeepDelayMs` after the last write (see `scheduleUpkeep`), shared by every write committed
   * meanwhile — so concurrent writes do not each pay for it — and at the latest before this port's next keyword
   * search, `indexState()` or `close()` (see `fresh`). The write is committed and acknowledged before upkeep runs: a
   * failed refresh is reported to the logger and retried after the next write or by `optimize()`.
   */
  write<R>(what: string, fn: (t: T) => Promise<R>, maintain?: (t: T) => readonly ManagedTable[]): Promise<R> {
    return this.track(
      (async () => {
        try {
          const t = await this.ready();
          return await this.db.exclusive(async () => {
            const result = await fn(t);
            if (maintain) {
              this.committed();
              if (this.upkeep.auto) {
                for (const table of maintain(t)) this.dirty.set(table.name, table);
                this.scheduleUpkeep();
              }
            }
            return result;
          });
        } catch (error) {
          throw wrapStoreError(ADAPTER, error, what);
        }
      })(),
    );
  }

  /**
   * The upkeep's timer: `delayMs` after the last write, so a burst of writes shares one upkeep instead of paying for
   * one every `delayMs`; but at most `UPKEEP_MAX_WAIT` delays after the first write it owes (writes that never
   * pause still get their indexes refreshed).
   */
  private scheduleUpkeep(): void {
    if (this.closed) return;
    const delay = this.upkeep.delayMs ?? 0;
    const now = Date.now();
    if (this.upkeepTimer !== null) {
      if (now - this.upkeepOwedSince >= delay * UPKEEP_MAX_WAIT) return;
      clearTimeout(this.upkeepTimer);
    } else this.upkeepOwedSince = now;
    this.upkeepTimer = setTimeout(
      () => {
        this.upkeepTimer = null;
        this.runUpkeep().catch(() => undefined);
      },
      Math.min(delay, Math.max(0, this.upkeepOwedSince + delay * UPKEEP_MAX_WAIT - now)),
    );
    this.upkeepTimer.unref();
  }

  /** One turn under the lock: the index upkeep of every table written since the last one. */
  private runUpkeep(): Promise<void> {
    if (this.dirty.size === 0) return this.upkeepRunning ?? Promise.resolve();
    const run = this.write('index upkeep', async () => {
      const tables = [...this.dirty.values()];
      this.dirty.clear();
      for (const table of tables) {
        try {
          await table.afterWrite();
        } catch (error) {
          this.upkeep.logger?.warn(`${ADAPTER}: index refresh of ${table.name} failed`, { error });
        }
      }
    });
    const tracked = run.finally(() => {
      if (this.upkeepRunning === tracked) this.upkeepRunning = null;
    });
    this.upkeepRunning = tracked;
    return tracked;
  }

  /** On close: the upkeep still owed, under the lock, directly (the port refuses new calls by now). */
  private async flushUpkeep(): Promise<void> {
    if (this.upkeepRunning) await this.upkeepRunning.catch(() => undefined);
    const t = this.opened;
    if (this.dirty.size === 0 || t === null) return;
    const tables = [...this.dirty.values()];
    this.dirty.clear();
    await this.db
      .exclusive(async () => {
        for (const table of tables) await table.afterWrite();
      })
      .catch((error: unknown) => this.upkeep.logger?.warn(`${ADAPTER}: index refresh on close failed`, { error }));
  }

  /**
   * Before a read that depends on the indexes (keyword search, index state): the upkeep of writes committed by
   * this port so far, run now if it is still waiting for its turn, and awaited if it is running.
   */
  async fresh(): Promise<void> {
    // A failed turn (the lock timed out) leaves the read to the flat scan of unindexed rows rather than failing it.
    if (this.dirty.size > 0) await this.runUpkeep().catch(() => undefined);
    else if (this.upkeepRunning) await this.upkeepRunning.catch(() => undefined);
  }

  /** A read that needs the indexes up to date with this port's writes (see `fresh`). */
  readFresh<R>(what: string, fn: (t: T) => Promise<R>): Promise<R> {
    return this.read(what, async (t) => {
      await this.fresh();
      return fn(t);
    });
  }

  /**
   * A write that changed rows committed: count it, start the timer of the background compaction on the first one,
   * and compact once `everyCommits` commits accumulated.
   */
  private committed(): void {
    const background = this.upkeep.background;
    if (!background || !this.upkeep.tables) return;
    this.commitsSinceCompaction += 1;
    if (this.timer === null && !this.closed) {
      this.timer = setInterval(() => {
        if (this.commitsSinceCompaction > 0) this.compactInBackground();
      }, background.everyMs);
      this.timer.unref();
    }
    if (this.commitsSinceCompaction >= background.everyCommits) queueMicrotask(() => this.compactInBackground());
  }

  /**
   * Background compaction: each table of the port in its own turn under the write lock (writes queued meanwhile
   * go in between, grouped), fragments merged, indexes refreshed and table versions older than `keepVersionsMs`
   * removed. Never awaited by a write; a failure is reported to the logger and retried on the next schedule.
   */
  compactInBackground(): Promise<void> {
    const background = this.upkeep.background;
    const tables = this.upkeep.tables;
    if (!background || !tables || this.compacting || this.closed) return Promise.resolve();
    this.compacting = true;
    this.commitsSinceCompaction = 0;
    const job = (async () => {
      try {
        const count = (await this.ready().then(tables)).length;
        for (let i = 0; i < count && !this.closed; i++) {
          await this.write('background compaction', (t) =>
            tables(t)[i]!.compactVersions(new Date(Date.now() - background.keepVersionsMs)),
          );
        }
      } catch (error) {
        if (!this.closed) this.upkeep.logger?.warn(`${ADAPTER}: background compaction failed`, { error });
      } finally {
        this.compacting = false;
      }
    })();
    return this.track(job);
  }

  /** Wait for calls in flight, then give the lease back (the last lease closes the connection). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.upkeepTimer !== null) clearTimeout(this.upkeepTimer);
    this.upkeepTimer = null;
    // Writes still queued commit first (close waits for them); then their index upkeep runs before the lease goes.
    await Promise.allSettled([...this.pending]);
    await this.flushUpkeep();
    await Promise.allSettled([...this.pending]);
    if (this.opening) await this.opening.catch(() => null);
    this.opened = null;
    this.opening = null;
    await this.db.release();
  }
}
