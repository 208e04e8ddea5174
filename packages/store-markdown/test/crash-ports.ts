/**
 * The Markdown ports the crash harness (@mem/testkit `crash/`) opens, in its writer processes (test/crash-child.ts)
 * and in the test that checks after each kill. Target: `{ root }`, the workspace folder.
 */
import type { HarnessPorts, HarnessTarget } from '@mem/testkit/internal';
import { createMarkdownStores } from '../src/index.js';

export async function openMarkdownPorts(target: HarnessTarget): Promise<HarnessPorts> {
  const { transcripts, notebooks } = createMarkdownStores({ root: String(target.root) });
  return {
    transcripts,
    notebooks,
    close: async () => {
      await transcripts.close();
      await notebooks.close();
    },
  };
}
