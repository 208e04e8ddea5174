/**
 * A writer process for the multi-process transcript tests (bundled once by src/conversation-adapter.test.ts with
 * esbuild; `node --conditions=dev-source --import tsx test/conversation-child.ts` runs it too). Settings come as JSON in
 * MEM_CHILD:
 *   mode 'append': append `count` messages tagged `tag` to (space 'default', `agent`), one per call, reporting each
 *                  acknowledged append over IPC (`{ ack }`), then exit 0.
 *   mode 'hold':   take `withLock` on the agent, append one message through the handle (not committed yet), report
 *                  `{ holding: true }` and wait to be killed inside the lock.
 */
import { createSqliteTranscriptStore } from '../src/index.js';

interface Settings {
  path: string;
  agent: string;
  mode: 'append' | 'hold';
  tag: string;
  count: number;
}

const s = JSON.parse(process.env.MEM_CHILD ?? '{}') as Settings;
const send = (m: unknown) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
const store = createSqliteTranscriptStore({ path: s.path, vectorExtension: false });
const header = { conversationId: `c-${s.tag}`, createdAt: new Date().toISOString() };
const payload = (i: number) => `${s.tag}-${i} ${'payload '.repeat(i % 7)}\nsecond line of ${s.tag}-${i}`;

if (s.mode === 'append') {
  for (let i = 0; i < s.count; i++) {
    await store.append(
      'default',
      s.agent,
      [{ role: i % 2 ? 'assistant' : 'user', content: payload(i), at: new Date().toISOString() }],
      header,
    );
    await send({ ack: payload(i) });
  }
  await store.close();
  await send({ done: true });
  process.exit(0);
} else {
  await store.withLock('default', s.agent, async (tx) => {
    await tx.append([{ role: 'user', content: `${s.tag} never committed`, at: new Date().toISOString() }], header);
    await send({ holding: true });
    // Killed here, holding the write lock with an open transaction.
    await new Promise(() => setInterval(() => {}, 1_000));
  });
}
