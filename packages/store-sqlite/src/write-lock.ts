/**
 * Write transactions for the transcript and notebook stores, which (unlike the other ports of this package) may hold
 * SQLite's write lock across `await`: `withLock` runs the caller's async function inside `BEGIN IMMEDIATE … COMMIT`,
 * and a compaction with a step hook awaits the hook between its statements.
 *
 * Two things make that safe within one process:
 * - a gate per connection (a FIFO of async sections): while one transaction of this module is open on a connection,
 *   other transactions and reads of this module on that connection wait for it instead of running inside it;
 *   calls made from inside the open transaction (recognised through AsyncLocalStorage) run in it, as a savepoint;
 * - the write lock is taken without blocking the event loop: `BEGIN IMMEDIATE` is tried with `busy_timeout` at 0 and
 *   retried after a short asynchronous sleep, up to the connection's `busy_timeout` in all. SQLite's own busy handler
 *   sleeps synchronously, so a second connection of the same process waiting for a lock that this process holds
 *   across an `await` would otherwise freeze the very code that is to release it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemError } from '@mem/core';
import type { Database } from 'better-sqlite3';
import type { SqliteLease } from './connection.js';
import { ADAPTER, isBusyError } from './database.js';

/** A FIFO of async sections: each starts when the one before it has settled. */
class Gate {
  private tail: Promise<void> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.tail;
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.tail = before.then(() => done);
    return before.then(fn).finally(release);
  }
}

/** An open transaction (or savepoint) of this module, as seen by the code running inside it. */
interface Hold {
  readonly db: Database;
  active: boolean;
  /** Serialises the savepoints opened from inside this transaction. */
  readonly nested: Gate;
}

const gates = new WeakMap<Database, Gate>();
const holds = new AsyncLocalStorage<ReadonlyMap<Database, Hold>>();
const snapshots = new WeakMap<Database, (fn: () => unknown) => unknown>();

function gateOf(db: Database): Gate {
  let gate = gates.get(db);
  if (gate === undefined) {
    gate = new Gate();
    gates.set(db, gate);
  }
  return gate;
}

/** The transaction of this module that the calling code runs inside, on `db` (if any). */
function currentHold(db: Database): Hold | undefined {
  const hold = holds.getStore()?.get(db);
  return hold?.active && db.inTransaction ? hold : undefined;
}

function inside<T>(hold: Hold, fn: () => T): T {
  const map = new Map(holds.getStore() ?? []);
  map.set(hold.db, hold);
  return holds.run(map, fn);
}

function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

const BUSY = Symbol('busy');
type Step<T> = typeof BUSY | { value: T } | { pending: Promise<T> };

/** `BEGIN IMMEDIATE` without waiting: false when another connection holds the write lock. */
function tryBegin(db: Database): boolean {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if (!isBusyError(error)) throw error;
    if (db.inTransaction) db.exec('ROLLBACK');
    return false;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

function rollbackQuietly(db: Database, savepoint: boolean): void {
  try {
    if (!db.open || !db.inTransaction) return;
    if (savepoint) db.exec('ROLLBACK TO mem_nested; RELEASE mem_nested');
    else db.exec('ROLLBACK');
  } catch {
    // The transaction is gone already (SQLite rolls back by itself after some errors).
  }
}

function lockTimeout(c: SqliteLease, what: string, waitedMs: number): MemError {
  return new MemError(
    'STORE_UNAVAILABLE',
    `${ADAPTER}: ${what} waited ${waitedMs} ms for the write lock of ${c.label}, which another writer still holds. Retry, or open the store with a larger busyTimeoutMs.`,
    { retryable: true, details: { path: c.label, waitedMs } },
  );
}

/** Sleep before the next `BEGIN IMMEDIATE` attempt: about 1, 2, 4 … ms, at most about 20 ms, jittered. */
function backoffMs(attempt: number): number {
  const base = Math.min(2 ** attempt, 20);
  return base / 2 + Math.random() * base;
}

async function settle<T>(
  c: SqliteLease,
  what: string,
  hold: Hold,
  step: { value: T } | { pending: Promise<T> },
  finish: string,
): Promise<T> {
  if ('value' in step) return step.value;
  const savepoint = finish !== 'COMMIT';
  try {
    const value = await step.pending;
    if (!c.db.inTransaction)
      throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: ${what} lost its transaction (was the store closed?).`);
    await c.run(what, () => c.db.exec(finish));
    return value;
  } catch (error) {
    rollbackQuietly(c.db, savepoint);
    throw error;
  } finally {
    hold.active = false;
  }
}

async function topLevel<T>(c: SqliteLease, what: string, body: () => T | Promise<T>): Promise<T> {
  const db = c.db;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const hold: Hold = { db, active: true, nested: new Gate() };
    const step: Step<T> = await c.run(what, () => {
      if (!tryBegin(db)) return BUSY;
      let out: T | Promise<T>;
      try {
        out = inside(hold, body);
      } catch (error) {
        hold.active = false;
        rollbackQuietly(db, false);
        throw error;
      }
      if (isPromiseLike(out)) return { pending: out };
      hold.active = false;
      try {
        db.exec('COMMIT');
      } catch (error) {
        rollbackQuietly(db, false);
        throw error;
      }
      return { value: out };
    });
    if (step !== BUSY) return settle(c, what, hold, step, 'COMMIT');
    const limit = db.pragma('busy_timeout', { simple: true }) as number;
    const waited = Date.now() - started;
    if (waited >= limit) throw lockTimeout(c, what, waited);
    await sleep(Math.min(backoffMs(attempt), Math.max(1, limit - waited)));
  }
}

async function nested<T>(c: SqliteLease, what: string, outer: Hold, body: () => T | Promise<T>): Promise<T> {
  const db = c.db;
  // The outer transaction ended while this call waited (a call it did not await): run on its own.
  if (!outer.active || !db.inTransaction) return gateOf(db).run(() => topLevel(c, what, body));
  const hold: Hold = { db, active: true, nested: new Gate() };
  const step = await c.run(what, (): { value: T } | { pending: Promise<T> } => {
    db.exec('SAVEPOINT mem_nested');
    let out: T | Promise<T>;
    try {
      out = inside(hold, body);
    } catch (error) {
      hold.active = false;
      rollbackQuietly(db, true);
      throw error;
    }
    if (isPromiseLike(out)) return { pending: out };
    hold.active = false;
    db.exec('RELEASE mem_nested');
    return { value: out };
  });
  return settle(c, what, hold, step, 'RELEASE mem_nested');
}

/**
 * Run `body` in one write transaction (`BEGIN IMMEDIATE … COMMIT`) on the lease's connection; a throw (or a rejected
 * promise) rolls it back. A synchronous body runs between `BEGIN` and `COMMIT` without yielding. Called from inside
 * another transaction of this module on the same connection, it runs as a savepoint of that transaction.
 * Driver errors become `STORE_UNAVAILABLE` / `STORE_CORRUPT` (prefixed `sqlite:`); errors of an async body pass as they are.
 */
export function writeTransaction<T>(c: SqliteLease, what: string, body: () => T | Promise<T>): Promise<T> {
  const hold = currentHold(c.db);
  if (hold) return hold.nested.run(() => nested(c, what, hold, body));
  return gateOf(c.db).run(() => topLevel(c, what, body));
}

/**
 * Run a read on one consistent snapshot (a deferred read transaction), or inside the caller's open transaction when
 * there is one. Waits for an open transaction of this module on the same connection that the caller is not part of.
 */
export function readSnapshot<T>(c: SqliteLease, what: string, fn: () => T): Promise<T> {
  const db = c.db;
  const read = () =>
    c.run(what, () => {
      if (db.inTransaction) return fn();
      let snapshot = snapshots.get(db);
      if (snapshot === undefined) {
        snapshot = db.transaction((f: () => unknown) => f());
        snapshots.set(db, snapshot);
      }
      return snapshot(fn) as T;
    });
  if (!db.inTransaction || currentHold(db)) return read();
  return gateOf(db).run(read);
}

/**
 * Make the connection sync the WAL on every commit (`synchronous=FULL`) when it syncs less: an acknowledged append or
 * write must survive power loss. `openDatabase` sets FULL already; this covers a connection passed as `{ db }`.
 */
export function ensureFullSync(db: Database): void {
  if (db.memory || db.inTransaction) return;
  const level = db.pragma('synchronous', { simple: true }) as number;
  if (level < 2) db.pragma('synchronous = FULL');
}
