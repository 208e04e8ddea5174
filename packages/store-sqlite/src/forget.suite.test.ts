import { describeForget, readTreeText, tempDir } from '@mem/testkit';
import {
  createSqliteNotebookStore,
  createSqliteStore,
  createSqliteStructuredStores,
  createSqliteTranscriptStore,
} from './index.js';

// Every port on one database file; the raw scan reads every file of the folder (database, WAL, shared memory).
describeForget('sqlite', async () => {
  const dir = tempDir('sqlite-forget');
  const path = dir.join('mem.db');
  return {
    knowledge: createSqliteStore({ path }),
    structured: createSqliteStructuredStores({ path }),
    transcripts: createSqliteTranscriptStore({ path }),
    notebooks: createSqliteNotebookStore({ path }),
    raw: async () => readTreeText(dir.path),
    cleanup: async () => dir.remove(),
  };
});
