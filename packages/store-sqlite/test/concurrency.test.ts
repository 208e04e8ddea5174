import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleChild, type ChildProgram, soak } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectSqliteFile, openSqlitePorts } from './crash-ports.js';

// Eight processes on one SQLite file doing store, edit, move, delete, rate and search for a fixed time; the final
// state must equal the log of acknowledged operations, and no SQLITE_BUSY may reach a caller (docs/safety.md).
// `mem bench crash --soak 60` runs the same for longer.

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

describe('eight processes on one SQLite file', { timeout: 120_000 }, () => {
  let program: ChildProgram;
  let dir: string;
  beforeAll(async () => {
    program = await bundleChild(CHILD);
    dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-soak-'));
  });
  afterAll(() => {
    program?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mixed operations for 4 s: nothing lost, no duplicate key, only the expected refusals', async () => {
    const path = join(dir, 'soak.db');
    const report = await soak({
      program,
      open: openSqlitePorts,
      target: { path },
      processes: 8,
      durationMs: 4_000,
      inspect: () => inspectSqliteFile(path),
    });
    console.log(`[store-sqlite] soak: ${JSON.stringify(report)}`);
    for (const op of ['store', 'edit', 'move', 'delete', 'rate', 'search'])
      expect(report.acked[op] ?? 0).toBeGreaterThan(0);
    expect(report.documents).toBeGreaterThan(0);
    // The writers did compete: some operations were refused because another process got there first.
    expect(
      (report.refused.KEY_TAKEN ?? 0) + (report.refused.CONFLICT ?? 0) + (report.refused.NOT_FOUND ?? 0),
    ).toBeGreaterThan(0);
  });
});
