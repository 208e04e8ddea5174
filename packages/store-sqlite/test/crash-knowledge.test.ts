import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleChild, type ChildProgram, crashCampaign } from '@mem/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectSqliteFile, openSqlitePorts } from './crash-ports.js';

// Writers in real processes, killed with SIGKILL at random points; after each kill the file is reopened and every
// acknowledged write must be there (SPEC §3, §8). `mem bench crash` runs the same with hundreds of kills.

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

describe('SQLite knowledge store under SIGKILL', { timeout: 120_000 }, () => {
  let program: ChildProgram;
  let dir: string;
  beforeAll(async () => {
    program = await bundleChild(CHILD);
    dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-crash-'));
  });
  afterAll(() => {
    program?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('knowledge store, edit and move: 16 kills, every acknowledged write survives', async () => {
    const path = join(dir, 'knowledge.db');
    const report = await crashCampaign({
      program,
      open: openSqlitePorts,
      target: { path },
      workload: 'knowledge',
      kills: 16,
      inspect: () => inspectSqliteFile(path),
    });
    expect(report.kills).toBe(16);
    // At least five kills in seven come after an acknowledged operation.
    expect(report.acked).toBeGreaterThanOrEqual(16 / 2);
  });
});
