import { describeStoreBundle, tempDir } from '@mem/testkit';
import { describe, expect, it } from 'vitest';
import { createSqliteStores } from './index.js';

// The bundle shape shared by every store package: one file, every port of the package.
describeStoreBundle('sqlite', async () => {
  const dir = tempDir('sqlite-bundle');
  return {
    bundle: createSqliteStores({ path: dir.join('mem.db') }),
    unavailableAfterClose: true,
    cleanup: async () => dir.remove(),
  };
});

describe('createSqliteStores', () => {
  it('opens one connection for every port and closes it with the bundle', async () => {
    const dir = tempDir('sqlite-bundle-one');
    try {
      const stores = createSqliteStores({ path: dir.join('mem.db'), vectorExtension: false });
      expect(stores.db.open).toBe(true);
      for (const port of [stores.transcripts, stores.notebooks, stores.structured]) expect(port.db).toBe(stores.db);
      expect((await stores.migrate()).applied).toEqual([]);
      await stores.close();
      expect(stores.db.open).toBe(false);
    } finally {
      dir.remove();
    }
  });
});
