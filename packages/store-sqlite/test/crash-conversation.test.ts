import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCrashCampaigns } from '@mem/testkit/internal';
import { inspectSqliteFile, openSqlitePorts } from './crash-ports.js';

// Transcript appends with compactions, and notebook writes, in writer processes killed at random points; after each
// kill every acknowledged message and notebook write must be there (docs/conversations.md, docs/notebooks.md, docs/safety.md).
const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-crash-'));
describeCrashCampaigns('SQLite transcripts and notebooks', {
  child: fileURLToPath(new URL('./crash-child.ts', import.meta.url)),
  open: openSqlitePorts,
  cases: [
    {
      title: 'transcript appends and compactions',
      workload: 'transcript',
      kills: 10,
      target: () => ({ path: join(dir, 'transcript.db') }),
      inspect: (t) => inspectSqliteFile(String(t.path)),
    },
    {
      title: 'notebook writes',
      workload: 'notebook',
      kills: 10,
      target: () => ({ path: join(dir, 'notebook.db') }),
      inspect: (t) => inspectSqliteFile(String(t.path)),
    },
  ],
  cleanup: () => rmSync(dir, { recursive: true, force: true }),
});
