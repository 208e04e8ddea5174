import { describeStoreBundle, tempDir } from '@mem/testkit';
import { createLanceStores } from './index.js';

// The bundle shape shared by every store package: the knowledge, episode and procedure stores on one folder.
describeStoreBundle('lancedb', async () => {
  const dir = tempDir('lancedb-bundle');
  return {
    bundle: createLanceStores({ uri: dir.path }),
    unavailableAfterClose: true,
    cleanup: async () => dir.remove(),
  };
});
