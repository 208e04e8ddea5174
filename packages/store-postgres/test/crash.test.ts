import { fileURLToPath } from 'node:url';
import { describeCrashCampaigns } from '@mem/testkit/internal';
import { openPostgresPorts } from './crash-ports.js';
import { adminClient, backend, dropSchema, freshSchema, url } from './helpers.js';

// Writers in real processes, killed with SIGKILL at random points (some while the schema is created); after each
// kill a fresh pool opens the schema and every acknowledged write must be there (docs/conversations.md, docs/notebooks.md, docs/safety.md). `mem bench crash`
// runs the same with hundreds of kills. PGlite (the fallback without MEM_TEST_POSTGRES_URL) serves one process only,
// so these tests need a real server.
const shared = backend === 'server';
if (!shared)
  console.log(
    '[store-postgres] crash tests skipped: they need a PostgreSQL server several processes can share (set MEM_TEST_POSTGRES_URL).',
  );
const admin = adminClient();
const schemas: string[] = [];
const freshTarget = () => {
  const schema = freshSchema('crash');
  schemas.push(schema);
  return { url, schema };
};

describeCrashCampaigns('PostgreSQL', {
  child: fileURLToPath(new URL('./crash-child.ts', import.meta.url)),
  open: openPostgresPorts,
  skip: !shared,
  cases: [
    { title: 'knowledge store, edit and move', workload: 'knowledge', kills: 10, target: freshTarget },
    { title: 'transcript appends and compactions', workload: 'transcript', kills: 8, target: freshTarget },
    { title: 'notebook writes', workload: 'notebook', kills: 8, target: freshTarget },
  ],
  cleanup: async () => {
    for (const schema of schemas) await dropSchema(admin, schema);
    await admin.end({ timeout: 5 });
  },
});
