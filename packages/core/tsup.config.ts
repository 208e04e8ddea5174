import { defineConfig } from 'tsup';
import { base } from '@mem/tsconfig/tsup.base.mjs';
export default defineConfig(base());
