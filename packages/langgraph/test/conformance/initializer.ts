/**
 * The `CheckpointerTestInitializer` of LangGraph's official checkpointer suite
 * (`@langchain/langgraph-checkpoint-validation`) for `MemCheckpointSaver` on a real SQLite file: one mem stack over
 * the file (`MEM_LG_CONFORMANCE_DB`, or a new temporary file), and each checkpointer the suite creates gets a space
 * of its own, so no instance sees another's threads (the suite's isolation rule). Destroying a checkpointer deletes
 * what it wrote, through `deleteThread`. `MEM_LG_CONFORMANCE_CHUNK` sets the saver's `chunkBytes` (to run the suite with
 * every document in pieces).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, type Stack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { MemCheckpointSaver } from '../../src/index.js';

let stack: Stack | undefined;
let dir: string | undefined;
let made = 0;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

export default {
  checkpointerName: 'MemCheckpointSaver (SQLite)',
  beforeAll() {
    let path = process.env.MEM_LG_CONFORMANCE_DB;
    if (!path) {
      dir = mkdtempSync(join(tmpdir(), 'mem-lg-conformance-'));
      path = join(dir, 'mem.db');
    }
    stack = createStack({ stores: createSqliteStores({ path }), embedder: createHashingEmbedder(), logger: quiet });
  },
  async afterAll() {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
  createCheckpointer() {
    made += 1;
    const chunk = process.env.MEM_LG_CONFORMANCE_CHUNK;
    return new MemCheckpointSaver({
      stack: stack!,
      space: `conformance-${process.pid}-${made}`,
      ...(chunk ? { chunkBytes: Number(chunk) } : {}),
    });
  },
  async destroyCheckpointer(saver: MemCheckpointSaver) {
    const threads = new Set<string>();
    for await (const t of saver.list({})) threads.add(String(t.config.configurable?.thread_id));
    for (const t of threads) await saver.deleteThread(t);
  },
};
