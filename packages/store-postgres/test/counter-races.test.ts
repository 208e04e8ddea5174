import { describeKnowledgeCounterRaces } from '@mem/testkit';
import { afterAll } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { adminClient, dropSchema, freshSchema, url } from './helpers.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

// Two pools on one schema, as two processes would have: a rating or a read that lands while an edit is under way
// must survive the edit (a lost update the eight-process soak found).
describeKnowledgeCounterRaces('postgres', async () => {
  const schema = freshSchema('races');
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
