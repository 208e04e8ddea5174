/**
 * One short-lived process of a Mastra app over a SQLite file: `node --conditions=dev-source --import tsx child.ts
 * <job JSON>`. It runs one agent turn with MemMastraMemory, flushes, and prints what the model saw as JSON.
 */
import { Agent } from '@mastra/core/agent';
import { createHashingEmbedder, createStack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { MemMastraMemory } from '../src/index.js';
import { type Answer, scriptedModel } from './scripted-model.js';

interface Job {
  db: string;
  thread: string;
  resource: string;
  say: string;
  script: Answer[];
}

const job = JSON.parse(process.argv[2]!) as Job;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const stack = createStack({
  stores: createSqliteStores({ path: job.db }),
  embedder: createHashingEmbedder(),
  logger: quiet,
});
const memory = new MemMastraMemory({
  stack,
  space: 'app',
  options: { lastMessages: 10, workingMemory: { enabled: true, template: '# User\n- **Name**:\n' } },
});
const { model, prompts } = scriptedModel(job.script);
const agent = new Agent({ id: 'helper', name: 'helper', instructions: 'You are a helpful assistant.', model, memory });
const result = await agent.generate(job.say, { memory: { thread: job.thread, resource: job.resource } });
await memory.flush({ threadId: job.thread, resourceId: job.resource });
await stack.close();
process.stdout.write(`${JSON.stringify({ text: result.text, prompts })}\n`);
