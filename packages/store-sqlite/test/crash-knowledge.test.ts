import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCrashCampaigns } from '@mem/testkit/internal';
import { inspectSqliteFile, openSqlitePorts } from './crash-ports.js';

// Writers in real processes, killed with SIGKILL at random points; after each kill the file is reopened and every
// acknowledged write must be there (docs/conversations.md, docs/safety.md). `mem bench crash` runs the same with hundreds of kills.
const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-crash-'));
describeCrashCampaigns('SQLite knowledge store', {
  child: fileURLToPath(new URL('./crash-child.ts', import.meta.url)),
  open: openSqlitePorts,
  cases: [
    {
      title: 'knowledge store, edit and move',
      workload: 'knowledge',
      kills: 16,
      target: () => ({ path: join(dir, 'knowledge.db') }),
      inspect: (t) => inspectSqliteFile(String(t.path)),
    },
  ],
  cleanup: () => rmSync(dir, { recursive: true, force: true }),
});
