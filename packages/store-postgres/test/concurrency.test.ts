import { fileURLToPath } from 'node:url';
import { bundleChild, type ChildProgram, soak } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresPorts } from './crash-ports.js';
import { adminClient, backend, dropSchema, freshSchema, url } from './helpers.js';

// Eight processes on one PostgreSQL schema doing store, edit, move, delete, rate and search for a fixed time; the
// final state must equal the log of acknowledged operations (docs/safety.md). `mem bench crash --soak 60` runs longer.
// PGlite (the fallback without MEM_TEST_POSTGRES_URL) serves one process only, so this test needs a real server.

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const shared = backend === 'server';
if (!shared)
  console.log(
    '[store-postgres] concurrency test skipped: it needs a PostgreSQL server several processes can share (set MEM_TEST_POSTGRES_URL).',
  );

describe.skipIf(!shared)('eight processes on one PostgreSQL schema', { timeout: 120_000 }, () => {
  const admin = adminClient();
  const schema = freshSchema('soak');
  let program: ChildProgram;
  beforeAll(async () => {
    program = await bundleChild(CHILD);
  });
  afterAll(async () => {
    program?.dispose();
    await dropSchema(admin, schema);
    await admin.end({ timeout: 5 });
  });

  it('mixed operations for 4 s: nothing lost, no duplicate key, only the expected refusals', async () => {
    const report = await soak({
      program,
      open: openPostgresPorts,
      target: { url, schema },
      processes: 8,
      durationMs: 4_000,
    });
    console.log(`[store-postgres] soak: ${JSON.stringify(report)}`);
    for (const op of ['store', 'edit', 'move', 'delete', 'rate', 'search'])
      expect(report.acked[op] ?? 0).toBeGreaterThan(0);
    expect(report.documents).toBeGreaterThan(0);
    expect(
      (report.refused.KEY_TAKEN ?? 0) + (report.refused.CONFLICT ?? 0) + (report.refused.NOT_FOUND ?? 0),
    ).toBeGreaterThan(0);
  });
});
