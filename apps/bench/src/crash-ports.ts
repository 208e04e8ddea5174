/**
 * The ports `mem bench crash` opens, for any of the stores it drives: in its writer processes (crash-child.ts) and
 * in the bench process that checks after each kill. Target: `{ store: 'sqlite', path }`, `{ store: 'markdown',
 * root }` or `{ store: 'postgres', url, schema }`.
 */

import { createMarkdownStores } from '@mem/store-markdown';
import { createPostgresStore, createPostgresStores } from '@mem/store-postgres';
import { createSqliteNotebookStore, createSqliteStore, createSqliteTranscriptStore } from '@mem/store-sqlite';
import type { HarnessPorts, HarnessTarget, HarnessWorkload } from '@mem/testkit/internal';

export async function openBenchPorts(target: HarnessTarget, workload: HarnessWorkload): Promise<HarnessPorts> {
  if (target.store === 'markdown') {
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
  if (target.store === 'postgres') {
    const url = String(target.url);
    const schema = String(target.schema);
    if (workload === 'knowledge' || workload === 'mixed') {
      const knowledge = await createPostgresStore({ url, schema, max: 2 });
      return { knowledge, close: () => knowledge.close() };
    }
    const stores = await createPostgresStores({ url, schema, max: 2 });
    return { transcripts: stores.transcripts, notebooks: stores.notebooks, close: () => stores.close() };
  }
  const path = String(target.path);
  if (workload === 'transcript') {
    const transcripts = createSqliteTranscriptStore({ path });
    return { transcripts, close: () => transcripts.close() };
  }
  if (workload === 'notebook') {
    const notebooks = createSqliteNotebookStore({ path });
    return { notebooks, close: () => notebooks.close() };
  }
  const knowledge = createSqliteStore({ path });
  return { knowledge, close: () => knowledge.close() };
}
