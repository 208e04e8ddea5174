import { base } from '@mem/tsconfig/tsup.base.mjs';
import { defineConfig } from 'tsup';
// One published entry (the suites); ./internal, ./attack and ./secret-examples stay source-only for the repository.
export default defineConfig(base());
