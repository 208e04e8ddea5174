import { describeForget, readTreeText, tempDir } from '@mem/testkit';
import { createLanceStores } from './index.js';

// Knowledge, episodes and procedures on one folder; the raw scan reads every file of it.
describeForget(
  'lancedb',
  async () => {
    const dir = tempDir('lancedb-forget');
    const stores = createLanceStores({ uri: dir.path });
    return {
      knowledge: stores.knowledge,
      structured: {
        episodes: stores.episodes,
        procedures: stores.procedures,
        close: async () => {
          await stores.episodes.close();
          await stores.procedures.close();
        },
      },
      raw: async () => readTreeText(dir.path),
      cleanup: async () => dir.remove(),
    };
  },
  { timeoutMs: 180_000 },
);
