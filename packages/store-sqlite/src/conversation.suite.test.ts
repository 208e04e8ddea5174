import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeNotebookStore, describeTranscriptStore } from '@mem/testkit';
import {
  createSqliteNotebookStore,
  createSqliteTranscriptStore,
  type SqliteNotebookStore,
  type SqliteTranscriptStore,
} from './index.js';

// The transcript and notebook suites on a fresh temp file each. `openAnother` opens a second, independent connection
// to the same file (as a second process would); the suites close what they open, `cleanup` removes the folder.

describeTranscriptStore('sqlite', async (options) => {
  const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-transcripts-'));
  const path = join(dir, 'mem.db');
  const opened: SqliteTranscriptStore[] = [];
  const open = (o: typeof options = {}) => {
    const store = createSqliteTranscriptStore({ path, ...o });
    opened.push(store);
    return store;
  };
  return {
    store: open(options),
    openAnother: async (o) => open(o),
    cleanup: async () => {
      for (const store of opened.splice(0)) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeNotebookStore('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-notebooks-'));
  const path = join(dir, 'mem.db');
  const opened: SqliteNotebookStore[] = [];
  const open = () => {
    const store = createSqliteNotebookStore({ path });
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    openAnother: async () => open(),
    cleanup: async () => {
      for (const store of opened.splice(0)) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
