import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MemError } from '@mem/core';
import { tempDir } from '@mem/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createLanceStore } from './index.js';
import {
  CPU_THREADS_VAR,
  cpuThreadsWarning,
  defaultCpuThreads,
  ensureCpuThreads,
  MIN_CPU_THREADS,
} from './native-runtime.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

// The batch-ingest stall: LanceDB 0.31 gives its compute pool ONE thread on a machine of up to 3 cores; the full-text
// index writer of `optimize()` then blocks that thread in a task producing postings while the writer waits for a
// compute thread to encode a page, and the process wedges for good (a batch load stopped at ~151,000 memories). The last
// test brings the same wedge about small, in a fresh process, and checks that a store's process does not wedge.

describe('LanceDB compute threads', () => {
  it('defaults to the cores minus the two LanceDB keeps for I/O, but never below MIN_CPU_THREADS', () => {
    expect(MIN_CPU_THREADS).toBeGreaterThan(1);
    for (const cores of [1, 2, 3, 4, 6]) expect(defaultCpuThreads(cores)).toBe(MIN_CPU_THREADS);
    expect(defaultCpuThreads(16)).toBe(14);
  });

  it('sets the variable when it is unset or empty, and says the value is its own', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(ensureCpuThreads(env, 2)).toEqual({ threads: MIN_CPU_THREADS, fromUser: false });
    expect(env[CPU_THREADS_VAR]).toBe(String(MIN_CPU_THREADS));
    const blank: NodeJS.ProcessEnv = { [CPU_THREADS_VAR]: ' ' };
    expect(ensureCpuThreads(blank, 32)).toEqual({ threads: 30, fromUser: false });
    expect(blank[CPU_THREADS_VAR]).toBe('30');
  });

  it("keeps the user's value, even a small one", () => {
    for (const value of ['8', '1']) {
      const env: NodeJS.ProcessEnv = { [CPU_THREADS_VAR]: value };
      expect(ensureCpuThreads(env, 2)).toEqual({ threads: Number(value), fromUser: true });
      expect(env[CPU_THREADS_VAR]).toBe(value);
    }
  });

  it('refuses a value LanceDB could not read, saying what was wrong and how to fix it', () => {
    for (const value of ['four', '0', '-2', '1.5', '4x']) {
      const env: NodeJS.ProcessEnv = { [CPU_THREADS_VAR]: value };
      let error: unknown;
      try {
        ensureCpuThreads(env, 2);
      } catch (e) {
        error = e;
      }
      expect(MemError.is(error) && error.code).toBe('INVALID_INPUT');
      expect((error as Error).message).toContain(`${CPU_THREADS_VAR} must be a whole number of at least 1`);
      expect((error as Error).message).toContain(JSON.stringify(value));
      expect(env[CPU_THREADS_VAR]).toBe(value);
    }
  });

  it('warns about a small value of the user, and about a store of a worker thread, whose variable LanceDB cannot see', () => {
    expect(cpuThreadsWarning({ threads: 1, fromUser: true }, true)).toContain(
      `${CPU_THREADS_VAR}=1 gives LanceDB fewer`,
    );
    expect(cpuThreadsWarning({ threads: MIN_CPU_THREADS, fromUser: true }, true)).toBeNull();
    expect(cpuThreadsWarning({ threads: 8, fromUser: true }, false)).toBeNull();
    expect(cpuThreadsWarning({ threads: 4, fromUser: false }, true)).toBeNull();
    expect(cpuThreadsWarning({ threads: 4, fromUser: false }, false)).toContain('created in a worker thread');
  });
});

describe('a store and the compute threads of its process', () => {
  const saved = process.env[CPU_THREADS_VAR];
  const dirs: { remove: () => void }[] = [];
  afterEach(() => {
    if (saved === undefined) delete process.env[CPU_THREADS_VAR];
    else process.env[CPU_THREADS_VAR] = saved;
    for (const dir of dirs.splice(0)) dir.remove();
  });

  it('sets LANCE_CPU_THREADS when it is created, before its first LanceDB call', async () => {
    delete process.env[CPU_THREADS_VAR];
    const dir = tempDir('lancedb-threads');
    dirs.push(dir);
    const store = createLanceStore({ uri: dir.path });
    expect(process.env[CPU_THREADS_VAR]).toBe(String(defaultCpuThreads(availableParallelism())));
    await store.close();
  });

  it('refuses to be created with a LANCE_CPU_THREADS LanceDB could not read', () => {
    process.env[CPU_THREADS_VAR] = 'many';
    const dir = tempDir('lancedb-threads');
    dirs.push(dir);
    expect(() => createLanceStore({ uri: dir.path })).toThrowError(/LANCE_CPU_THREADS must be a whole number/);
  });

  it('warns once when the user left LanceDB fewer than MIN_CPU_THREADS threads', async () => {
    process.env[CPU_THREADS_VAR] = '1';
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    const dir = tempDir('lancedb-threads');
    dirs.push(dir);
    const a = createLanceStore({ uri: dir.join('a'), logger });
    const b = createLanceStore({ uri: dir.join('b'), logger });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${CPU_THREADS_VAR}=1`);
    expect(process.env[CPU_THREADS_VAR]).toBe('1');
    await a.close();
    await b.close();
  });
});

/** A fresh process (LanceDB's pool is sized once per process) running test/threads-child.ts with `env`. */
async function runChild(
  env: NodeJS.ProcessEnv,
): Promise<{ wedged: boolean; lanceCpuThreads: number; env: string | null }> {
  const dir = tempDir('lancedb-threads-child');
  try {
    const { stdout } = await run(
      process.execPath,
      ['--conditions=dev-source', '--import', 'tsx', join(here, '..', 'test', 'threads-child.ts'), dir.join('db')],
      { cwd: join(here, '..'), env, timeout: 90_000 },
    );
    return JSON.parse(stdout);
  } finally {
    dir.remove();
  }
}

describe.skipIf(process.platform !== 'linux')('the wedge of the batch-ingest stall, in a fresh process', () => {
  it("does not happen in a store's process; it does with LanceDB's compute pool at one thread", async () => {
    // LANCE_IO_CORE_RESERVATION past the cores makes LanceDB's own default one compute thread on any machine.
    const env: NodeJS.ProcessEnv = { ...process.env, LANCE_IO_CORE_RESERVATION: '1024' };
    delete env[CPU_THREADS_VAR];
    const fixed = await runChild(env);
    expect(fixed.wedged).toBe(false);
    expect(fixed.env).toBe(String(defaultCpuThreads(availableParallelism())));
    // Its runtime: one scheduler thread plus the compute (blocking) threads started so far, all named `lance-cpu`.
    expect(fixed.lanceCpuThreads).toBeGreaterThan(2);
    // The control: the same work with one compute thread wedges (so this test can tell).
    expect(await runChild({ ...env, [CPU_THREADS_VAR]: '1' })).toEqual({ wedged: true, lanceCpuThreads: 2, env: '1' });
  });
});
