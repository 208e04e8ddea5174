// The config of the official checkpointer suite's run (vitest 4, the suite's own): see checkpointer.conformance.test.ts.
import { fileURLToPath } from 'node:url';

export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { conditions: ['dev-source'] },
  ssr: { resolve: { conditions: ['dev-source'] } },
  test: { globals: true, include: ['official.spec.ts'], pool: 'forks', testTimeout: 60_000, hookTimeout: 120_000 },
};
