import { base } from '@mem/tsconfig/tsup.base.mjs';
import { defineConfig } from 'tsup';

// src/use-model.js is also an entry of its own: the model's worker thread starts dist/use-model.js.
export default defineConfig(base({ entry: ['src/index.ts', 'src/use-model.js'], dts: { entry: 'src/index.ts' } }));
