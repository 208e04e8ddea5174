import { describeNotebookStore, describeTranscriptStore } from '@mem/testkit';
import { afterAll, beforeAll } from 'vitest';
import { type SharedSchema, sharedSchema, url } from '../test/helpers.js';
import {
  createPostgresNotebookStore,
  createPostgresTranscriptStore,
  type PostgresNotebookStore,
  type PostgresTranscriptStore,
} from './index.js';

// One migrated schema for the file, emptied before each test. The store under test shares the file's pool;
// `openAnother` opens a separate postgres.js pool on the same schema, as a second process would.
let db: SharedSchema;
beforeAll(async () => {
  db = await sharedSchema('convo');
});
afterAll(() => db.drop());

describeTranscriptStore('postgres', async (options) => {
  await db.wipe();
  const opened: PostgresTranscriptStore[] = [];
  const store = await createPostgresTranscriptStore({ sql: db.sql, schema: db.schema, ...options });
  return {
    store,
    openAnother: async (o = {}) => {
      const other = await createPostgresTranscriptStore({ url, schema: db.schema, max: 2, ...o });
      opened.push(other);
      return other;
    },
    cleanup: async () => {
      await store.close();
      for (const other of opened.splice(0)) await other.close();
    },
  };
});

describeNotebookStore('postgres', async () => {
  await db.wipe();
  const opened: PostgresNotebookStore[] = [];
  const store = await createPostgresNotebookStore({ sql: db.sql, schema: db.schema });
  return {
    store,
    openAnother: async () => {
      const other = await createPostgresNotebookStore({ url, schema: db.schema, max: 2 });
      opened.push(other);
      return other;
    },
    cleanup: async () => {
      await store.close();
      for (const other of opened.splice(0)) await other.close();
    },
  };
});
