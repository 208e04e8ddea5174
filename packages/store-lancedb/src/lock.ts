import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { MemError } from '@mem/core';
import { PRIVATE_FILE_MODE } from '@mem/core/adapter';

/**
 * Serialises async critical sections that share a name inside this process (a FIFO queue per name), so that two
 * store instances on one folder in the same process never poll the lock file against each other.
 */
const queues = new Map<string, Promise<void>>();

export async function withProcessMutex<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  queues.set(name, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (queues.get(name) === tail) queues.delete(name);
  }
}

export interface FileLockOptions {
  /** A lock whose holder stopped refreshing it this long ago is broken (ms). Default 15000. */
  staleMs?: number;
  /** Give up waiting for the lock after this long (ms). Default 60000. */
  timeoutMs?: number;
}

interface LockContent {
  token: string;
  pid: number;
  host: string;
  at: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readContent(path: string): Promise<LockContent | null> {
  try {
    const parsed = JSON.parse(await fs.readFile(path, 'utf8')) as Partial<LockContent>;
    if (typeof parsed.token !== 'string') return null;
    return {
      token: parsed.token,
      pid: Number(parsed.pid),
      host: String(parsed.host),
      at: String(parsed.at),
    };
  } catch {
    return null;
  }
}

/**
 * An exclusive lock file (`O_CREAT | O_EXCL`) around write critical sections, shared by every process that opens
 * the same folder. The holder refreshes the file's mtime (heartbeat) while it holds the lock. A lock is stale —
 * and broken by the next writer — when its holder is a dead process on this host, or when its heartbeat is older
 * than `staleMs` (a crashed holder on another host of a shared file system). Breaking renames the file away first
 * and checks that it renamed the stale holder's file, so two writers breaking the same stale lock do not both win.
 */
export class FileLock {
  readonly path: string;
  private readonly staleMs: number;
  private readonly timeoutMs: number;

  constructor(path: string, options: FileLockOptions = {}) {
    this.path = path;
    this.staleMs = options.staleMs ?? 15_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** Take the lock; resolves to the release function. */
  async acquire(): Promise<() => Promise<void>> {
    const token = `${process.pid}:${randomUUID()}`;
    const content: LockContent = { token, pid: process.pid, host: hostname(), at: new Date().toISOString() };
    const deadline = Date.now() + this.timeoutMs;
    let delay = 1;
    for (;;) {
      if (await this.tryCreate(content)) break;
      if (await this.breakIfStale()) continue;
      if (Date.now() > deadline) {
        const holder = await readContent(this.path);
        throw new MemError(
          'STORE_UNAVAILABLE',
          `lancedb: could not take the write lock ${this.path} within ${this.timeoutMs} ms${holder ? ` (held by process ${holder.pid} on ${holder.host} since ${holder.at})` : ''}. Another process is writing; retry later, or delete the file if no process uses the store.`,
          { retryable: true, details: { lock: this.path } },
        );
      }
      await sleep(delay * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 25);
    }
    const heartbeat = setInterval(
      () => {
        const now = new Date();
        fs.utimes(this.path, now, now).catch(() => undefined);
      },
      Math.max(50, Math.floor(this.staleMs / 3)),
    );
    heartbeat.unref();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      const current = await readContent(this.path);
      // Only remove our own lock (if it was broken as stale meanwhile, the file is someone else's now).
      if (current?.token === token) await fs.rm(this.path, { force: true });
    };
  }

  private async tryCreate(content: LockContent): Promise<boolean> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.path, 'wx', PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      await handle.writeFile(JSON.stringify(content));
    } finally {
      await handle.close();
    }
    return true;
  }

  /** True when a stale lock was removed (the caller retries at once). */
  private async breakIfStale(): Promise<boolean> {
    let mtimeMs: number;
    try {
      mtimeMs = (await fs.stat(this.path)).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw error;
    }
    const holder = await readContent(this.path);
    // A holder writes its content right after creating the file: an empty file younger than staleMs is being born.
    const deadHere = holder !== null && holder.host === hostname() && !isAlive(holder.pid);
    const silent = Date.now() - mtimeMs > this.staleMs;
    if (!deadHere && !silent) return false;
    const aside = `${this.path}.${randomUUID()}.stale`;
    try {
      await fs.rename(this.path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw error;
    }
    const moved = await readContent(aside);
    if (moved !== null && moved.token !== holder?.token) {
      // We renamed a lock that someone took after the stale one was broken: put it back if the name is free.
      await fs.link(aside, this.path).catch(() => undefined);
    }
    await fs.rm(aside, { force: true });
    return true;
  }
}
