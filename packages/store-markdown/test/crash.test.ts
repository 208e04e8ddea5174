import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCrashCampaigns } from '@mem/testkit/internal';
import { openMarkdownPorts } from './crash-ports.js';

// Writers in real processes, killed with SIGKILL at random points (not only at the compaction steps of
// src/processes.test.ts); after each kill the folder is read by a fresh store and every acknowledged message and
// notebook write must be there (docs/conversations.md, docs/notebooks.md, docs/safety.md). `mem bench crash` runs the same with hundreds of kills.
const root = mkdtempSync(join(tmpdir(), 'mem-md-crash-'));
describeCrashCampaigns('Markdown stores', {
  child: fileURLToPath(new URL('./crash-child.ts', import.meta.url)),
  open: openMarkdownPorts,
  cases: [
    { title: 'transcript appends and compactions', workload: 'transcript', kills: 10, target: () => ({ root }) },
    { title: 'notebook writes', workload: 'notebook', kills: 10, target: () => ({ root }) },
  ],
  cleanup: () => rmSync(root, { recursive: true, force: true }),
});
