import { join } from 'node:path';
import { describeNotebookStore, describeTranscriptStore, tempFixture } from '@mem/testkit';
import { createSqliteNotebookStore, createSqliteTranscriptStore } from './index.js';

// The transcript and notebook suites on a fresh temp file each. `openAnother` opens a second, independent connection
// to the same file (as a second process would); `cleanup` closes every connection and removes the folder.

describeTranscriptStore('sqlite', async (options) =>
  tempFixture(
    'sqlite-transcripts',
    (dir, o: typeof options = {}) => createSqliteTranscriptStore({ path: join(dir, 'mem.db'), ...o }),
    options,
  ),
);

describeNotebookStore('sqlite', async () =>
  tempFixture('sqlite-notebooks', (dir) => createSqliteNotebookStore({ path: join(dir, 'mem.db') })),
);
