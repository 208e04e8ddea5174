/**
 * What secretlint adds to a store: median time of `knowledge.store` over the first 200 LoCoMo turns, on an
 * in-memory stack without an embedder, with and without the scanner (each text stored once per stack), and the
 * median of one `scan` call alone. Run: node --conditions=dev-source --import tsx scripts/overhead.ts
 */
import { createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import { locomoTurns } from '@mem/testkit/internal';
import { createSecretlintScanner } from '../src/index.js';

const N = 200;
const texts = locomoTurns().slice(0, N);
const p: Principal = { space: 'bench', agentId: 'a', role: 'lead' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function storeTimes(withScanner: boolean): Promise<number[]> {
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    ...(withScanner ? { secretScanner: createSecretlintScanner() } : {}),
  });
  // Warm-up (module loading, first lint) on a text not in the sample.
  await stack.knowledge.store(p, { content: 'warm-up text' });
  const out: number[] = [];
  for (const t of texts) {
    const t0 = performance.now();
    await stack.knowledge.store(p, { content: t });
    out.push(performance.now() - t0);
  }
  await stack.close();
  return out;
}

const without = await storeTimes(false);
const withScan = await storeTimes(true);
const scanner = createSecretlintScanner();
await scanner.scan([{ what: 'content', text: 'warm-up' }]);
const scans: number[] = [];
for (const t of texts) {
  const t0 = performance.now();
  await scanner.scan([{ what: 'content', text: t }]);
  scans.push(performance.now() - t0);
}
const f = (x: number) => `${x.toFixed(3)} ms`;
console.log(`texts: ${texts.length} LoCoMo turns, median ${median(texts.map((t) => t.length))} chars`);
console.log(`store without scanner: median ${f(median(without))}`);
console.log(`store with secretlint: median ${f(median(withScan))}`);
console.log(`added per store (difference of medians): ${f(median(withScan) - median(without))}`);
console.log(
  `one scan call alone: median ${f(median(scans))}, p90 ${f([...scans].sort((a, b) => a - b)[Math.floor(N * 0.9)]!)}`,
);
