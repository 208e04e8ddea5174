/**
 * `pnpm start`: a short tour of mem on the embedded default (a SQLite file + the local embedder).
 * It stores a handful of memories for two agents, then searches, recalls and edits them.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Principal } from '@mem/core';
import { openStack, readSettings } from '@mem/server';

const path = resolve(process.env.MEM_DEMO_DB ?? '.mem/demo.db');
for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });

const started = Date.now();
// The stack `mem` builds by default (the local embedder, Markdown transcripts under ./.mem), on the demo's own file.
const stack = await openStack(readSettings({ MEM_DB: path }));
const lead: Principal = { space: 'demo', agentId: 'planner', role: 'lead' };
const coder: Principal = { space: 'demo', agentId: 'coder', role: 'worker' };

const memories: [Principal, Record<string, unknown>][] = [
  [
    lead,
    {
      content: 'Acme Corp is our largest customer; their renewal is due in March.',
      key: '/longterm/entities/customers/acme-corp',
      scope: 'swarm',
    },
  ],
  [
    lead,
    {
      content: 'We chose PostgreSQL over MongoDB for the billing service because invoices need transactions.',
      key: '/longterm/decisions/billing-database',
      scope: 'swarm',
    },
  ],
  [
    coder,
    {
      content: 'Run `pnpm test --filter billing` before pushing; the CI job takes about 8 minutes.',
      tags: ['ci', 'billing'],
    },
  ],
  [
    coder,
    {
      content: 'The payments API retries a failed webhook three times with exponential backoff.',
      key: '/longterm/facts/payments/webhook-retries',
    },
  ],
  [
    coder,
    {
      content: 'Task 412 done: fixed the timezone bug in invoice due dates (they are stored in UTC).',
      source: 'task_completion',
    },
  ],
  [
    coder,
    {
      content: 'The staging database is reset every Sunday night, so do not keep test fixtures there.',
      tags: ['staging'],
    },
  ],
];

console.log(`mem demo — SQLite at ${path}, local embedder\n`);
for (const [who, input] of memories) {
  const r = await stack.knowledge.store(who, input);
  console.log(`stored ${r.key}  (${who.agentId})`);
}

for (const query of [
  'why did we pick postgres for billing',
  'how do I run the billing tests',
  'what happens when a webhook fails',
]) {
  console.log(`\nsearch "${query}" as coder:`);
  for (const r of await stack.knowledge.search(coder, { query, limit: 3 })) {
    console.log(`  ${r.score.toFixed(3)}  ${r.name}  [${r.key}]`);
  }
}

const recall = await stack.knowledge.recall(coder, 'Fix the invoice due date shown to Acme in the billing service');
console.log(`\nrecall block for a new task:\n${recall.block ?? '(nothing relevant)'}`);

const [hit] = await stack.knowledge.search(coder, { query: 'staging database reset', limit: 1 });
if (hit) {
  await stack.knowledge.edit(coder, {
    id: hit.docId,
    intent: 'the reset moved',
    oldText: 'Sunday night',
    newText: 'Saturday night',
  });
  const doc = await stack.knowledge.get(coder, { id: hit.docId });
  console.log(`\nedited ${doc.id}: "${doc.content}" (version ${doc.version})`);
}

await stack.close();
console.log(
  `\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. Try: pnpm mem search "billing" --db ${path} --space demo --agent coder`,
);
