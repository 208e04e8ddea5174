/** A writer process of the crash tests (see crash-ports.ts); settings come in MEM_CHILD. */
import { runHarnessChild } from '@mem/testkit/internal';
import { openMarkdownPorts } from './crash-ports.js';

await runHarnessChild(openMarkdownPorts);
