#!/usr/bin/env node
// Runs the mem CLI from its TypeScript source (through tsx, with the dev-source export condition).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx');
const result = spawnSync(
  process.execPath,
  ['--conditions=dev-source', '--import', tsx, join(here, '..', 'src', 'bin.ts'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
