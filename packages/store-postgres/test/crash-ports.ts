/**
 * The PostgreSQL ports the crash and concurrency harness (@mem/testkit `crash/`) opens, in its writer processes
 * (test/crash-child.ts) and in the tests that check afterwards. Target: `{ url, schema }`.
 */
import type { HarnessPorts, HarnessTarget, HarnessWorkload } from '@mem/testkit/internal';
import { createPostgresStore, createPostgresStores } from '../src/index.js';

export async function openPostgresPorts(target: HarnessTarget, workload: HarnessWorkload): Promise<HarnessPorts> {
  const url = String(target.url);
  const schema = String(target.schema);
  if (workload === 'knowledge' || workload === 'mixed') {
    const knowledge = await createPostgresStore({ url, schema, max: 2 });
    return { knowledge, close: () => knowledge.close() };
  }
  const stores = await createPostgresStores({ url, schema, max: 2 });
  return { transcripts: stores.transcripts, notebooks: stores.notebooks, close: () => stores.close() };
}
