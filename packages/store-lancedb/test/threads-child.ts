/**
 * A fresh process for the compute-threads test (LanceDB sizes its compute pool once per process). It creates a store
 * on the folder in argv[2] (which sets LANCE_CPU_THREADS when unset, see src/native-runtime.ts), then brings about
 * the trigger of the batch-ingest stall on a table of its own in that folder: a full-text index on 1,000 rows of 200
 * distinct words, 9,000 more rows appended, then `optimize()`, whose fold-in writes ~1.8 million postings — past the
 * page at which LanceDB's index file writer encodes on a compute thread, while the task producing the postings holds
 * one, blocked on a one-batch queue. Prints `{ wedged, lanceCpuThreads, env }` as JSON: `wedged` when `optimize()`
 * has not settled after 3 s and the process used no CPU for 3 s in a row (it never would settle).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { createLanceStore } from '../src/index.js';

const uri = process.argv[2]!;
const store = createLanceStore({ uri });
await store.ready();
let seed = 7;
const word = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return `w${Math.floor((seed / 2147483648) * 50_000)}`;
};
let id = 0;
const rows = (count: number) =>
  Array.from({ length: count }, () => ({ id: `r${id++}`, text: Array.from({ length: 200 }, word).join(' ') }));
const db = await lancedb.connect(join(uri, 'trigger'));
const table = await db.createTable('postings', rows(1000));
await table.createIndex('text', { config: lancedb.Index.fts({ withPosition: false }) });
for (let i = 0; i < 9; i++) await table.add(rows(1000));

const lanceCpuThreads = () =>
  readdirSync('/proc/self/task').filter((t) => readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === 'lance-cpu')
    .length;
const report = (wedged: boolean) =>
  process.stdout.write(
    JSON.stringify({ wedged, lanceCpuThreads: lanceCpuThreads(), env: process.env.LANCE_CPU_THREADS ?? null }),
  );

const started = Date.now();
let idleSince = Date.now();
let cpu = process.cpuUsage();
const watchdog = setInterval(() => {
  const used = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  if (used.user + used.system > 20_000) idleSince = Date.now();
  if (Date.now() - started > 3000 && Date.now() - idleSince >= 3000) {
    report(true);
    process.exit(0); // the native threads stay wedged: leave without waiting for them
  }
}, 250);
await table.optimize();
clearInterval(watchdog);
report(false);
table.close();
db.close();
await store.close();
