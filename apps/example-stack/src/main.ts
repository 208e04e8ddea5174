/**
 * Compose your own stack: every piece chosen in code, nothing read from a config file.
 *
 *   pnpm --filter @mem/example-stack start [folder] [--embedder local|hashing]
 *
 * One SQLite file holds the knowledge memories and the structured stores (facts, episodes, …); transcripts and
 * notebooks are Markdown files beside it; the embedder is the offline local model (or the hashing one, for speed).
 * Each run remembers what the runs before it stored: run it twice and the second run finds the first one's notes.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createHashingEmbedder, createStack, MemError, type Principal } from '@mem/core';
import { createLocalEmbedder } from '@mem/embed-local';
import { episodicServices } from '@mem/episodic';
import { createMarkdownStores } from '@mem/store-markdown';
import { createSqliteStore, createSqliteStructuredStores } from '@mem/store-sqlite';

const { values, positionals } = parseArgs({
  options: { embedder: { type: 'string', default: 'local' } },
  allowPositionals: true,
});
if (values.embedder !== 'local' && values.embedder !== 'hashing') {
  process.stderr.write(`--embedder must be local or hashing (got "${values.embedder}").\n`);
  process.exit(2);
}
const dir = resolve(positionals[0] ?? '.mem-example');

// 1. The adapters: pick one per port.
const knowledgeStore = createSqliteStore({ path: join(dir, 'mem.db') });
const { transcripts, notebooks } = createMarkdownStores({ root: dir });
const embedder = values.embedder === 'local' ? createLocalEmbedder() : createHashingEmbedder();

// 2. The stack: services over those ports, with the options you want to change.
const stack = createStack({
  knowledge: knowledgeStore,
  structured: createSqliteStructuredStores({ db: knowledgeStore.db }),
  transcripts,
  notebooks,
  embedder,
  knowledgeOptions: { searchLimit: 3 },
  // Episodic memory (and consolidation) as a service of the stack, built on first use over its `episodes` port.
  services: [episodicServices()],
  requires: ['facts', 'episodes', 'transcripts', 'notebooks'],
});

// 3. Use it as an agent would.
const me: Principal = { space: 'example', agentId: 'assistant', role: 'worker' };
const print = (what: string, value: unknown) => process.stdout.write(`${JSON.stringify({ what, value })}\n`);

try {
  const facts = stack.port('facts');
  const runs = Number((await facts.get(me.space, 'ada')).find((f) => f.key === 'runs')?.value ?? 0) + 1;
  await facts.upsert(me.space, {
    user: 'ada',
    topic: null,
    key: 'runs',
    value: runs,
    source: 'user',
    at: new Date().toISOString(),
  });
  print('run', runs);

  const stored = await stack.knowledge.store(me, {
    content: `Run ${runs}: Ada prefers short answers with a code sample first.`,
    tags: ['preference'],
  });
  print('stored', stored.id);
  const hits = await stack.knowledge.search(me, { query: 'how does Ada like answers?' });
  print(
    'search',
    hits.map((h) => h.content),
  );

  const conversation = stack.conversations!.open({ space: me.space, agentId: me.agentId });
  await conversation.add('user', `Hello again (run ${runs}).`);
  print('transcript', (await conversation.messages()).length);

  await stack.notebook!.write(me, { content: `- run ${runs} finished` });
  print('notebook', (await stack.notebook!.read(me, { file: 'MEMORY.md' })).content.trim().split('\n'));

  await stack.service('episodes').store(me.space, {
    summary: `Example run ${runs} answered Ada.`,
    outcome: 'success',
    tags: ['example'],
  });
  print('episodes', await stack.service('episodes').count(me.space));
} catch (e) {
  // mem's errors carry a stable code and a message that says how to fix the problem.
  process.stderr.write(MemError.is(e) ? `${e.code}: ${e.message}\n` : `${String(e)}\n`);
  process.exitCode = 1;
} finally {
  await stack.close();
}
