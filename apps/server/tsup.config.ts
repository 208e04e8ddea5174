import { base } from '@mem/tsconfig/tsup.base.mjs';
import { defineConfig } from 'tsup';

// The library (index), the CLI's server commands (cli) and the default-stack starter (start). The server's benches
// live in apps/bench.
export default defineConfig(base({ entry: ['src/index.ts', 'src/cli-commands.ts', 'src/start.ts'] }));
