import { base } from '@mem/tsconfig/vitest.base.mjs';
import { defineConfig } from 'vitest/config';
export default defineConfig(base());
