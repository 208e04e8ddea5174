import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemError } from '@mem/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, pidAlive, staleReason, withFileLock } from './lock.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mem-md-lock-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = { timeoutMs: 2_000, staleMs: 30_000 };

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

describe('lock files', () => {
  it('hold pid, host, time and a token, and are gone after release', async () => {
    const lock = path.join(dir, 'a.lock');
    const held = await acquireLock(lock, opts, 'test');
    const info = JSON.parse(await readFile(lock, 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, host: os.hostname(), token: held.token });
    expect(Date.parse(info.at)).not.toBeNaN();
    await held.release();
    expect(await readdir(dir)).not.toContain('a.lock');
  });

  it('exclude each other: critical sections never overlap', async () => {
    const lock = path.join(dir, 'b.lock');
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withFileLock(lock, opts, 'test', async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setImmediate(r));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  it('break a lock whose holder died, at once', async () => {
    const lock = path.join(dir, 'c.lock');
    const pid = await deadPid();
    expect(pidAlive(pid)).toBe(false);
    await writeFile(lock, JSON.stringify({ pid, host: os.hostname(), at: new Date().toISOString(), token: 'dead' }));
    const start = Date.now();
    const held = await acquireLock(lock, opts, 'test');
    expect(Date.now() - start).toBeLessThan(1_000);
    await held.release();
  });

  it('break a lock older than the stale timeout even if its holder lives, and an unreadable old one', async () => {
    const lock = path.join(dir, 'd.lock');
    await writeFile(
      lock,
      JSON.stringify({
        pid: process.pid,
        host: os.hostname(),
        at: new Date(Date.now() - 60_000).toISOString(),
        token: 'old',
      }),
    );
    expect(staleReason({ info: JSON.parse(await readFile(lock, 'utf8')), mtimeMs: Date.now() }, 30_000)).toMatch(/old/);
    await (await acquireLock(lock, opts, 'test')).release();
    const garbled = path.join(dir, 'e.lock');
    await writeFile(garbled, '{"pid": 12');
    const old = new Date(Date.now() - 60_000);
    await utimes(garbled, old, old);
    await (await acquireLock(garbled, opts, 'test')).release();
  });

  it('many waiters breaking one stale lock still take it one at a time', async () => {
    const lock = path.join(dir, 'f.lock');
    const dead = await deadPid();
    let inside = 0;
    let most = 0;
    for (let round = 0; round < 5; round++) {
      await writeFile(
        lock,
        JSON.stringify({ pid: dead, host: os.hostname(), at: new Date().toISOString(), token: `dead-${round}` }),
      );
      await Promise.all(
        Array.from({ length: 12 }, () =>
          withFileLock(lock, opts, 'test', async () => {
            inside++;
            most = Math.max(most, inside);
            await new Promise((r) => setImmediate(r));
            inside--;
          }),
        ),
      );
    }
    expect(most).toBe(1);
    // Nothing is left behind: no lock, no claim, no candidate.
    expect((await readdir(dir)).filter((n) => n.startsWith('f.lock'))).toEqual([]);
  });

  it('time out on a live holder with a retryable error that names the holder and the fix', async () => {
    const lock = path.join(dir, 'g.lock');
    const held = await acquireLock(lock, opts, 'test');
    try {
      await acquireLock(lock, { timeoutMs: 50, staleMs: 30_000 }, 'the transcript of agent "x"');
      expect.unreachable();
    } catch (e) {
      expect(MemError.is(e, 'STORE_UNAVAILABLE')).toBe(true);
      expect((e as MemError).retryable).toBe(true);
      expect((e as MemError).message).toContain(`pid ${process.pid}`);
      expect((e as MemError).message).toContain(`delete ${lock}`);
    } finally {
      await held.release();
    }
  });

  it('never release a lock that was broken and taken by another', async () => {
    const lock = path.join(dir, 'h.lock');
    const mine = await acquireLock(lock, opts, 'test');
    await writeFile(
      lock,
      JSON.stringify({ pid: process.pid, host: os.hostname(), at: new Date().toISOString(), token: 'someone-else' }),
    );
    await mine.release();
    expect(JSON.parse(await readFile(lock, 'utf8')).token).toBe('someone-else');
  });
});
