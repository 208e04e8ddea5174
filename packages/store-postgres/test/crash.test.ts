import { fileURLToPath } from 'node:url';
import { bundleChild, type ChildProgram, crashCampaign } from '@mem/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresPorts } from './crash-ports.js';
import { adminClient, backend, dropSchema, freshSchema, url } from './helpers.js';

// Writers in real processes, killed with SIGKILL at random points; after each kill a fresh pool opens the schema and
// every acknowledged write must be there (SPEC §8). `mem bench crash` runs the same with hundreds of kills.
// PGlite (the fallback without MEM_TEST_POSTGRES_URL) serves one process only, so these tests need a real server.

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const shared = backend === 'server';
if (!shared)
  console.log(
    '[store-postgres] crash tests skipped: they need a PostgreSQL server several processes can share (set MEM_TEST_POSTGRES_URL).',
  );

describe.skipIf(!shared)('PostgreSQL under SIGKILL', { timeout: 120_000 }, () => {
  const admin = adminClient();
  const schemas: string[] = [];
  let program: ChildProgram;
  beforeAll(async () => {
    program = await bundleChild(CHILD);
  });
  afterAll(async () => {
    program?.dispose();
    for (const schema of schemas) await dropSchema(admin, schema);
    await admin.end({ timeout: 5 });
  });

  it('knowledge store, edit and move: 10 kills (some while the schema is created), nothing acknowledged lost', async () => {
    const schema = freshSchema('crash');
    schemas.push(schema);
    const report = await crashCampaign({
      program,
      open: openPostgresPorts,
      target: { url, schema },
      workload: 'knowledge',
      kills: 10,
    });
    expect(report.kills).toBe(10);
    // At least five kills in seven come after an acknowledged operation.
    expect(report.acked).toBeGreaterThanOrEqual(10 / 2);
  });
});
