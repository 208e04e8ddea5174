/**
 * A writer process for the multi-process tests (bundled by the test with @mem/testkit's bundleChild; `tsx test/child.ts` runs it too). Settings come as JSON in MEM_CHILD:
 *   mode 'append': append `count` messages tagged `tag`, reporting each acknowledged append over IPC, then exit.
 *   mode 'chaos':  append messages and compact every `compactEvery` appends, reporting each acknowledged append and
 *                  each compaction start; with `killAtStep`, SIGKILL itself before that step of compaction number
 *                  `killAtCompaction` (a real crash: no finally blocks, the lock file stays behind).
 */
import { createMarkdownTranscriptStore } from '../src/index.js';

interface Settings {
  root: string;
  agent: string;
  mode: 'append' | 'chaos';
  tag: string;
  count: number;
  compactEvery?: number;
  killAtStep?: string;
  killAtCompaction?: number;
}

const s = JSON.parse(process.env.MEM_CHILD ?? '{}') as Settings;
const send = (m: unknown) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
let compactions = 0;
const store = createMarkdownTranscriptStore({
  root: s.root,
  onCompactionStep: (step) => {
    if (s.killAtStep === step && compactions === s.killAtCompaction) process.kill(process.pid, 'SIGKILL');
  },
});
const header = { conversationId: `c-${s.tag}`, createdAt: new Date().toISOString() };
const payload = (i: number) => `${s.tag}-${i} ${'payload '.repeat(i % 7)}\n---\nsecond line of ${s.tag}-${i}`;

for (let i = 0; i < s.count; i++) {
  await store.append(
    'default',
    s.agent,
    [{ role: i % 2 ? 'assistant' : 'user', content: payload(i), at: new Date().toISOString() }],
    header,
  );
  await send({ ack: payload(i) });
  if (s.mode === 'chaos' && s.compactEvery && (i + 1) % s.compactEvery === 0) {
    compactions++;
    await send({ compacting: compactions });
    const t = (await store.read('default', s.agent))!;
    await store.compact('default', s.agent, {
      basis: { conversationId: t.header.conversationId, messageCount: t.messages.length },
      header: { conversationId: `k-${s.tag}-${compactions}`, createdAt: new Date().toISOString() },
      messages: [
        {
          role: 'system',
          content: `[Compressed Memory Summary]\n${s.tag} compaction ${compactions} of ${t.messages.length} messages`,
          at: new Date().toISOString(),
        },
      ],
      archivedAt: new Date().toISOString(),
    });
  }
}
await send({ done: true });
process.exit(0);
