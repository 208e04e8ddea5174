import { describeForget, readTreeText, tempDir } from '@mem/testkit';
import { createLanceStores } from './index.js';

// Knowledge, episodes, procedures and the graph on one folder; the raw scan reads every file of it.
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
        graph: stores.graph,
        close: async () => {
          await stores.episodes.close();
          await stores.procedures.close();
          await stores.graph.close();
        },
      },
      raw: async () => readTreeText(dir.path),
      cleanup: async () => dir.remove(),
    };
  },
  { timeoutMs: 180_000 },
);
