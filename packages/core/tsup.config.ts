import { base } from '@mem/tsconfig/tsup.base.mjs';
import { defineConfig } from 'tsup';
// Two entry points: `@mem/core` (applications) and `@mem/core/adapter` (adapter authors).
export default defineConfig(base({ entry: ['src/index.ts', 'src/adapter.ts'] }));
