import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeForget } from '@mem/testkit';
import {
  createSqliteNotebookStore,
  createSqliteStore,
  createSqliteStructuredStores,
  createSqliteTranscriptStore,
} from './index.js';

// Every port on one database file; the raw scan reads every file of the folder (database, WAL, shared memory).
describeForget('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-forget-'));
  const path = join(dir, 'mem.db');
  return {
    knowledge: createSqliteStore({ path }),
    structured: createSqliteStructuredStores({ path }),
    transcripts: createSqliteTranscriptStore({ path }),
    notebooks: createSqliteNotebookStore({ path }),
    raw: async () =>
      readdirSync(dir)
        .map((file) => readFileSync(join(dir, file)).toString('latin1'))
        .join('\n'),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
