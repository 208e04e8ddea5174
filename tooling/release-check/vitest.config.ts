import { base } from '@mem/tsconfig/vitest.base.mjs';
import { defineConfig } from 'vitest/config';

// Installs run one after another (npm and the native build of better-sqlite3 are heavy on a small machine).
export default defineConfig(base({ test: { testTimeout: 600_000, hookTimeout: 1_200_000, fileParallelism: false } }));
