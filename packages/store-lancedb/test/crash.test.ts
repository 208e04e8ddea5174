import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCrashCampaigns } from '@mem/testkit/internal';
import { openLancePorts } from './crash-ports.js';

// Writers in real processes (two side by side on one folder, so their writes meet at the lock and in grouped
// commits), killed with SIGKILL at random points — during a commit, the index upkeep or a background compaction;
// after each kill the folder is reopened and every acknowledged write must be there, nothing unacknowledged.
const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-crash-'));
describeCrashCampaigns('LanceDB knowledge store', {
  child: fileURLToPath(new URL('./crash-child.ts', import.meta.url)),
  open: openLancePorts,
  cases: [
    {
      title: 'knowledge store, edit and move',
      workload: 'knowledge',
      kills: 8,
      target: () => ({ uri: join(dir, 'knowledge') }),
    },
  ],
  cleanup: () => rmSync(dir, { recursive: true, force: true }),
});
