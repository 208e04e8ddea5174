import { describeStoreBundle } from '@mem/testkit';
import { afterAll } from 'vitest';
import { adminClient, dropSchema, freshSchema, url } from '../test/helpers.js';
import { createPostgresStores } from './index.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

// The bundle shape shared by every store package: every port on a pool of its own (ended by close) and a fresh schema.
describeStoreBundle('postgres', async () => {
  const schema = freshSchema('bundle');
  return {
    bundle: await createPostgresStores({ url, schema, max: 3 }),
    unavailableAfterClose: true,
    cleanup: () => dropSchema(admin, schema),
  };
});
