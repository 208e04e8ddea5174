import { processIo } from './io.js';
import { run } from './main.js';

// Library noise (model loaders, drivers) must never reach stdout, which holds only our output (JSON with --json).
console.log = console.error;
console.info = console.error;
console.warn = console.error;

run(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`mem: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
