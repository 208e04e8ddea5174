/** A writer process of the crash test (see crash-ports.ts); settings come in MEM_CHILD. */
import { runHarnessChild } from '@mem/testkit/internal';
import { openLancePorts } from './crash-ports.js';

await runHarnessChild(openLancePorts);
