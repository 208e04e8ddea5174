/** A writer process of `mem bench crash` (see crash-ports.ts); the harness gives its settings. */
import { runHarnessChild } from '@mem/testkit/internal';
import { openBenchPorts } from './crash-ports.js';

await runHarnessChild(openBenchPorts);
