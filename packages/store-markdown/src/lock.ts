import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { MemError } from '@mem/core';
import { PRIVATE_FILE_MODE } from '@mem/core/adapter';
import { isCode, uniqueSuffix } from './fs-utils.js';

export interface FileLockOptions {
  /** How long to wait for a held lock before giving up with a retryable STORE_UNAVAILABLE (ms). */
  timeoutMs: number;
  /** A lock older than this is broken even if its holder seems alive (ms). */
  staleMs: number;
}

/** What a lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  at: string;
  token: string;
}

const HOST = os.hostname();

/** True when a process with this pid exists on this machine. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isCode(error, 'ESRCH');
  }
}

interface Holder {
  /** The lock file's text: it holds a random token, so it identifies one acquisition. */
  raw: string;
  info: LockInfo | null;
  mtimeMs: number;
}

function parseInfo(text: string): LockInfo | null {
  try {
    const p = JSON.parse(text) as Partial<LockInfo>;
    return typeof p.pid === 'number' &&
      typeof p.host === 'string' &&
      typeof p.at === 'string' &&
      typeof p.token === 'string'
      ? (p as LockInfo)
      : null;
  } catch {
    return null;
  }
}

async function inspect(file: string): Promise<Holder | null> {
  try {
    const [raw, st] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    return { raw, info: parseInfo(raw), mtimeMs: st.mtimeMs };
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
}

/** Why a lock is stale, or null when its holder may still be working. */
export function staleReason(
  holder: { info: LockInfo | null; mtimeMs: number },
  staleMs: number,
  now = Date.now(),
): string | null {
  const { info } = holder;
  if (!info) return now - holder.mtimeMs > staleMs ? 'an unreadable lock file older than the stale timeout' : null;
  if (info.host === HOST && !pidAlive(info.pid)) return `its holder (pid ${info.pid}) is no longer running`;
  const age = now - Date.parse(info.at);
  if (!(age <= staleMs)) return `it is ${Math.round(age / 1000)} s old (stale after ${Math.round(staleMs / 1000)} s)`;
  return null;
}

/** Create `file` with `body` only if it does not exist, never visible half written (candidate + hard link). */
async function createExclusive(file: string, body: string): Promise<boolean> {
  const candidate = `${file.replace(/\.claim\.[0-9a-f]+$/, '')}.${uniqueSuffix()}`;
  await fs.writeFile(candidate, body, { mode: PRIVATE_FILE_MODE });
  try {
    await fs.link(candidate, file);
    return true;
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  } finally {
    await fs.unlink(candidate).catch(() => {});
  }
}

/** Move `file` aside if it still holds `raw`; if what was moved is something else, try to put it back. */
async function removeIfSame(file: string, raw: string): Promise<void> {
  const grave = `${file}.stale.${uniqueSuffix()}`;
  try {
    await fs.rename(file, grave);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  try {
    if ((await readText(grave)) !== raw) await fs.link(grave, file).catch(() => {});
  } finally {
    await fs.unlink(grave).catch(() => {});
  }
}

/** A claim lives only for the microseconds of a break or a release; an older one belongs to a crashed process. */
const CLAIM_STALE_MS = 2_000;

/**
 * Take the exclusive right to remove the lock whose text is `raw`: the file `<lock>.claim.<hash of raw>`. Breakers of
 * a stale lock and the releasing holder all go through it, so exactly one of them removes that lock, and a lock taken
 * afterwards (other text, other claim) is never touched. A claim left by a crashed process is cleared.
 */
async function withClaim(lockPath: string, raw: string, fn: () => Promise<void>): Promise<boolean> {
  const claim = `${lockPath}.claim.${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`;
  const body = JSON.stringify({
    pid: process.pid,
    host: HOST,
    at: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(claim, body)) {
      try {
        await fn();
      } finally {
        await fs.unlink(claim).catch(() => {});
      }
      return true;
    }
    const other = await inspect(claim);
    if (!other) continue;
    if (staleReason(other, CLAIM_STALE_MS) === null) return false;
    await removeIfSame(claim, other.raw);
  }
  return false;
}

/** Break a stale lock: under its claim, remove it if it still is the lock judged stale. */
async function breakLock(lockPath: string, judged: Holder): Promise<boolean> {
  const done = await withClaim(lockPath, judged.raw, async () => {
    if ((await readText(lockPath)) === judged.raw) await fs.unlink(lockPath);
  });
  if (done) await removeDeadLeftovers(lockPath);
  return done;
}

/** Remove `<lock>.<pid>.<hex>` candidates and `<lock>.*.stale.<pid>.<hex>` leftovers of processes that died meanwhile. */
async function removeDeadLeftovers(lockPath: string): Promise<void> {
  const dir = path.dirname(lockPath);
  const base = `${path.basename(lockPath)}.`;
  let names: string[] = [];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(base)) continue;
    const m = /(?:^|\.)(\d+)\.[0-9a-f]{12}$/.exec(n.slice(base.length));
    const pid = m ? Number(m[1]) : Number.NaN;
    if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) await fs.unlink(path.join(dir, n)).catch(() => {});
  }
}

export interface HeldLock {
  token: string;
  release(): Promise<void>;
}

/**
 * Take an exclusive lock: a file created atomically (a complete candidate file hard-linked into place, so the lock
 * file is never seen half written) holding pid, host, time and a token. A lock whose holder died (same host, pid
 * gone) or that is older than `staleMs` is broken. Waits by polling with a short back-off until `timeoutMs`.
 */
export async function acquireLock(lockPath: string, options: FileLockOptions, what: string): Promise<HeldLock> {
  const token = randomBytes(8).toString('hex');
  const info: LockInfo = { pid: process.pid, host: HOST, at: new Date().toISOString(), token };
  const candidate = `${lockPath}.${uniqueSuffix()}`;
  await fs.writeFile(candidate, JSON.stringify(info), { mode: PRIVATE_FILE_MODE });
  const deadline = Date.now() + options.timeoutMs;
  let pause = 1;
  try {
    for (;;) {
      if (Date.now() - Date.parse(info.at) > 1_000) {
        // After a long wait, date the lock from when it is taken, not from when the wait began.
        info.at = new Date().toISOString();
        await fs.writeFile(candidate, JSON.stringify(info), { mode: PRIVATE_FILE_MODE });
      }
      try {
        await fs.link(candidate, lockPath);
        return { token, release: () => releaseLock(lockPath, token) };
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
      }
      const holder = await inspect(lockPath);
      if (!holder) continue;
      if (staleReason(holder, options.staleMs) !== null && (await breakLock(lockPath, holder))) continue;
      if (Date.now() >= deadline) {
        const by = holder.info
          ? `pid ${holder.info.pid} on ${holder.info.host} since ${holder.info.at}`
          : 'an unknown holder';
        throw new MemError(
          'STORE_UNAVAILABLE',
          `markdown: ${what} is locked by ${by} and stayed locked for ${options.timeoutMs} ms. Retry later; if no mem process is running, delete ${lockPath}.`,
          { retryable: true, details: { lockPath } },
        );
      }
      await delay(pause);
      pause = Math.min(pause * 2, 8);
    }
  } finally {
    await fs.unlink(candidate).catch(() => {});
  }
}

/**
 * Release a lock if it is still ours, under its claim (so a process breaking it as stale and this release never both
 * remove something). A lock broken as stale and taken by another is left alone.
 */
async function releaseLock(lockPath: string, token: string): Promise<void> {
  const holder = await inspect(lockPath).catch(() => null);
  if (holder?.info?.token !== token) return;
  await withClaim(lockPath, holder.raw, async () => {
    if ((await readText(lockPath)) === holder.raw) await fs.unlink(lockPath);
  }).catch(() => false);
}

export async function withFileLock<T>(
  lockPath: string,
  options: FileLockOptions,
  what: string,
  fn: () => Promise<T>,
): Promise<T> {
  const held = await acquireLock(lockPath, options, what);
  try {
    return await fn();
  } finally {
    await held.release();
  }
}
