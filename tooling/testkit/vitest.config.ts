import { defineConfig } from 'vitest/config';
import { base } from '@mem/tsconfig/vitest.base.mjs';
export default defineConfig(base());
