import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeForget } from '@mem/testkit';
import { createLanceStores } from './index.js';

/** Every file under `dir` (data fragments, deletion files, manifests, indexes), as text. */
function readTree(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

// Knowledge, episodes and procedures on one folder; the raw scan reads every file of it.
describeForget(
  'lancedb',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-forget-'));
    const stores = createLanceStores({ uri: dir });
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
      raw: async () => readTree(dir),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  { timeoutMs: 180_000 },
);
