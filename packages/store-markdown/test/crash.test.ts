import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleChild, type ChildProgram, crashCampaign } from '@mem/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMarkdownPorts } from './crash-ports.js';

// Writers in real processes, killed with SIGKILL at random points (not only at the compaction steps of
// src/processes.test.ts); after each kill the folder is read by a fresh store and every acknowledged message and
// notebook write must be there (SPEC §3, §4, §8). `mem bench crash` runs the same with hundreds of kills.

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

describe('Markdown stores under SIGKILL', { timeout: 120_000 }, () => {
  let program: ChildProgram;
  let root: string;
  beforeAll(async () => {
    program = await bundleChild(CHILD);
    root = mkdtempSync(join(tmpdir(), 'mem-md-crash-'));
  });
  afterAll(() => {
    program?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('transcript appends and compactions: 10 kills, every acknowledged message survives', async () => {
    const report = await crashCampaign({
      program,
      open: openMarkdownPorts,
      target: { root },
      workload: 'transcript',
      kills: 10,
    });
    expect(report.kills).toBe(10);
    // At least five kills in seven come after an acknowledged operation.
    expect(report.acked).toBeGreaterThanOrEqual(10 / 2);
  });

  it('notebook writes: 10 kills, every file equals its acknowledged writes', async () => {
    const report = await crashCampaign({
      program,
      open: openMarkdownPorts,
      target: { root },
      workload: 'notebook',
      kills: 10,
    });
    expect(report.kills).toBe(10);
    // At least five kills in seven come after an acknowledged operation.
    expect(report.acked).toBeGreaterThanOrEqual(10 / 2);
  });
});
