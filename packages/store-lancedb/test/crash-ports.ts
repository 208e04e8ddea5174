/**
 * The LanceDB ports the crash harness (@mem/testkit `crash/`) opens, in its writer processes (test/crash-child.ts)
 * and in the test that checks after each kill. Target: `{ uri }` of the folder. Only the knowledge workload: the
 * package has no transcript or notebook store.
 */
import type { HarnessPorts, HarnessTarget, HarnessWorkload } from '@mem/testkit/internal';
import { createLanceStore } from '../src/index.js';

export async function openLancePorts(target: HarnessTarget, workload: HarnessWorkload): Promise<HarnessPorts> {
  if (workload !== 'knowledge') throw new Error(`@mem/store-lancedb has no store for the ${workload} workload`);
  const knowledge = createLanceStore({ uri: String(target.uri) });
  return { knowledge, close: () => knowledge.close() };
}
