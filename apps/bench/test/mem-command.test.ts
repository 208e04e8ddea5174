/** The benches that run the mem command find it where `mem bench` says (MEM_BENCH_CLI_DIR), and say so when unset. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_DIR_ENV, memCliDir, memDevBin } from '../src/mem-command.js';

const saved = process.env[CLI_DIR_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[CLI_DIR_ENV];
  else process.env[CLI_DIR_ENV] = saved;
});

describe('where the mem command is', () => {
  it('is the folder mem bench names, with its source launcher', () => {
    const dir = join(import.meta.dirname, '..', '..', 'cli');
    process.env[CLI_DIR_ENV] = dir;
    expect(memCliDir()).toBe(dir);
    expect(memDevBin()).toBe(join(dir, 'bin', 'mem-dev.js'));
    expect(existsSync(memDevBin())).toBe(true);
  });

  it('says to start the bench through mem when nobody named it', () => {
    delete process.env[CLI_DIR_ENV];
    expect(() => memCliDir()).toThrow(/MEM_BENCH_CLI_DIR is not set.*pnpm mem bench/);
  });
});
