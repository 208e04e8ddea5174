import { base } from '@mem/tsconfig/tsup.base.mjs';
import { defineConfig } from 'tsup';
export default defineConfig(base());
