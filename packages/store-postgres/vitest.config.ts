import { base } from '@mem/tsconfig/vitest.base.mjs';
import { defineConfig } from 'vitest/config';

// A globalSetup provides the server: MEM_TEST_POSTGRES_URL, or PGlite started for the run.
// One test file at a time: PGlite serves every connection through one backend.
export default defineConfig(base({ test: { globalSetup: ['./test/global-setup.ts'], fileParallelism: false } }));
