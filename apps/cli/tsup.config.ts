import { base } from '@mem/tsconfig/tsup.base.mjs';
import { defineConfig } from 'tsup';

// One executable module: dist/bin.js, what the published `mem` command runs (plain Node, no TypeScript loader).
export default defineConfig(base({ entry: ['src/bin.ts'], dts: false, banner: { js: '#!/usr/bin/env node' } }));
