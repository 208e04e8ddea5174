import { describeKnowledgeStore } from '@mem/testkit';
import { afterAll } from 'vitest';
import { adminClient, dropSchema, freshSchema, url } from '../test/helpers.js';
import { createPostgresStore } from './index.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

// Each test gets its own schema; openAnother is a second, independent pool on the same database and schema.
describeKnowledgeStore('postgres', async () => {
  const schema = freshSchema('suite');
  const store = await createPostgresStore({ url, schema, max: 4 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await dropSchema(admin, schema);
    },
    openAnother: () => createPostgresStore({ url, schema, max: 4 }),
  };
});
