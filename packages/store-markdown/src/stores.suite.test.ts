import { describeStoreBundle, tempDir } from '@mem/testkit';
import { createMarkdownStores } from './index.js';

// The bundle shape shared by every store package: transcripts and notebooks over one workspace folder.
describeStoreBundle('markdown', async () => {
  const dir = tempDir('markdown-bundle');
  return {
    bundle: createMarkdownStores({ root: dir.path }),
    unavailableAfterClose: false,
    cleanup: async () => dir.remove(),
  };
});
