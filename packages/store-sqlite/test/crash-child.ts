/** A writer process of the crash and concurrency tests (see crash-ports.ts); settings come in MEM_CHILD. */
import { runHarnessChild } from '@mem/testkit/internal';
import { openSqlitePorts } from './crash-ports.js';

await runHarnessChild(openSqlitePorts);
