#!/usr/bin/env node
// Development launcher: runs the mem CLI from its TypeScript source (through tsx, with the dev-source export
// condition). Used by `pnpm mem` and the tests inside this repository; the published `mem` runs dist/bin.js.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx');
const child = spawn(
  process.execPath,
  ['--conditions=dev-source', '--import', tsx, join(here, '..', 'src', 'bin.ts'), ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
// Pass termination signals on, so that a process manager stopping `mem serve` stops the server itself.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
