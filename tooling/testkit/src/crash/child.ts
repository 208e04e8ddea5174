/** The child side of the crash harness: the writer processes a campaign kills and a soak runs side by side. */
import { MemError, type Principal } from '@mem/core';
import { childSettings, seededRandom, sendToParent } from '../processes.js';
import {
  COMPACT_EVERY,
  conversationOver,
  factText,
  type HarnessMessage,
  type HarnessOp,
  type HarnessPorts,
  type HarnessSettings,
  type KnownDoc,
  MARKER,
  memoryOver,
  NOTEBOOK_FILES,
  notebookOver,
  type OpenHarnessPorts,
  pick,
  WORDS,
  words,
} from './shared.js';

/**
 * The body of a child program: `await runHarnessChild(openPorts)`. Crash workloads write until they are killed;
 * the mixed workload waits for `go`, runs `durationMs`, and exits 0.
 */
export async function runHarnessChild(open: OpenHarnessPorts): Promise<void> {
  const s = await childSettings<HarnessSettings>();
  const go =
    s.workload === 'mixed'
      ? new Promise<void>((resolve) => process.once('message', () => resolve()))
      : Promise.resolve();
  const ports = await open(s.target, s.workload);
  await sendToParent({ ready: true } satisfies HarnessMessage);
  const rnd = seededRandom(s.seed);
  const step = async (begin: HarnessOp, run: () => Promise<HarnessOp>) => {
    await sendToParent({ begin } satisfies HarnessMessage);
    const ack = await run();
    await sendToParent({ ack } satisfies HarnessMessage);
  };
  if (s.workload === 'knowledge') await knowledgeWriter(s, ports, rnd, step);
  else if (s.workload === 'transcript') await transcriptWriter(s, ports, rnd, step);
  else if (s.workload === 'notebook') await notebookWriter(s, ports, rnd, step);
  else {
    await go;
    await mixedWorker(s, ports, rnd);
  }
  await ports.close();
  await sendToParent({ done: true } satisfies HarnessMessage);
  process.exit(0);
}

type Step = (begin: HarnessOp, run: () => Promise<HarnessOp>) => Promise<void>;

/** Writers stop on their own only after this many operations (a parent that never kills is a bug, not a hang). */
const MAX_OPS = 1_000_000;
async function knowledgeWriter(s: HarnessSettings, ports: HarnessPorts, rnd: () => number, step: Step) {
  const memory = memoryOver(ports);
  const p: Principal = { space: s.space, agentId: s.agent, role: 'lead' };
  const docs: KnownDoc[] = [...(s.docs ?? [])];
  for (let i = 0; i < MAX_OPS; i++) {
    const mark = `${s.tag}x${i}`;
    const r = rnd();
    if (docs.length < 3 || r < 0.4) {
      const content = factText(mark, rnd);
      const key = rnd() < 0.5 ? `/longterm/facts/crash/${mark}` : undefined;
      await step({ op: 'store', content, ...(key ? { key } : {}) }, async () => {
        const res = await memory.store(p, { content, name: mark, ...(key ? { key } : {}) });
        docs.push({ id: res.id, key: res.key });
        return { op: 'store', id: res.id, key: res.key, content, version: 1 };
      });
    } else if (r < 0.75) {
      const doc = pick(docs, rnd);
      const content = factText(mark, rnd);
      const newKey = rnd() < 0.15 ? `/longterm/facts/crash/${mark}` : undefined;
      await step({ op: 'edit', id: doc.id, content, ...(newKey ? { key: newKey } : {}) }, async () => {
        const res = await memory.edit(p, {
          id: doc.id,
          intent: 'crash test edit',
          content,
          ...(newKey ? { newKey } : {}),
        });
        doc.key = res.key;
        return { op: 'edit', id: doc.id, content, key: res.key, version: res.version };
      });
    } else {
      const doc = pick(docs, rnd);
      const key = `/longterm/facts/crash/${mark}`;
      await step({ op: 'move', id: doc.id, key }, async () => {
        const res = await memory.edit(p, { id: doc.id, intent: 'crash test move', newKey: key });
        doc.key = res.key;
        return { op: 'move', id: doc.id, key: res.key, version: res.version };
      });
    }
  }
}
async function transcriptWriter(s: HarnessSettings, ports: HarnessPorts, rnd: () => number, step: Step) {
  const conversation = conversationOver(ports, s.space, s.agent);
  await conversation.load();
  for (let i = 0; i < MAX_OPS; i++) {
    const content = `<${s.tag}-${i}> ${words(rnd, 6 + Math.floor(rnd() * 30))}`;
    await step({ op: 'add', content }, async () => {
      await conversation.add(i % 2 ? 'assistant' : 'user', content);
      return { op: 'add', content };
    });
    if ((i + 1) % COMPACT_EVERY === 0) {
      const summary = `<${s.tag}-s${i}> summary: ${words(rnd, 10)}`;
      await step({ op: 'compact', summary }, async () => {
        await conversation.compact(summary);
        return { op: 'compact', summary };
      });
    }
  }
}
async function notebookWriter(s: HarnessSettings, ports: HarnessPorts, rnd: () => number, step: Step) {
  const notebook = notebookOver(ports);
  const owner = { space: s.space, agentId: s.agent };
  const files: Record<string, string[]> = structuredClone(s.files ?? {});
  // The view of a file can be stale when an earlier writer's interrupted write surfaced later (see Unresolved):
  // a refused replace or drop (nothing written, nothing acknowledged) re-reads the file and goes on.
  const resync = async (write: Promise<void>, file: string) => {
    try {
      await write;
    } catch (error) {
      if (!MemError.is(error, 'INVALID_INPUT') && !MemError.is(error, 'NOT_FOUND')) throw error;
      const read = await notebook.read(owner, { file }).catch(() => null);
      if (read?.version) files[file] = read.content.match(MARKER) ?? [];
      else delete files[file];
    }
  };
  for (let i = 0; i < MAX_OPS; i++) {
    const line = `<${s.tag}-${i}>`;
    const file = pick(NOTEBOOK_FILES, rnd);
    const lines = files[file];
    const r = rnd();
    if (!lines || lines.length === 0 || r < 0.5) {
      await step({ op: 'append', file, line }, async () => {
        await notebook.write(owner, { file, content: line });
        (files[file] ??= []).push(line);
        return { op: 'append', file, line };
      });
    } else if (r < 0.85 || file === 'MEMORY.md') {
      // Replace a line, or (one time in three) remove it: oldText with empty content.
      const old = pick(lines, rnd);
      const next = r < 0.72 ? line : '';
      await resync(
        step({ op: 'replace', file, old, line: next }, async () => {
          await notebook.write(owner, { file, content: next, oldText: old });
          files[file] = lines.flatMap((l) => (l === old ? (next ? [next] : []) : [l]));
          return { op: 'replace', file, old, line: next };
        }),
        file,
      );
    } else {
      await resync(
        step({ op: 'drop', file }, async () => {
          await notebook.delete(owner, { file });
          delete files[file];
          return { op: 'drop', file };
        }),
        file,
      );
    }
  }
}
const soakKey = (n: number) => `/longterm/facts/soak/k${n}`;

async function mixedWorker(s: HarnessSettings, ports: HarnessPorts, rnd: () => number) {
  const memory = memoryOver(ports);
  const p: Principal = { space: s.space, agentId: s.agent, role: 'lead' };
  const pool = s.keyPool ?? 24;
  const ids: string[] = [];
  const deadline = Date.now() + (s.durationMs ?? 2_000);
  const ack = (op: HarnessOp) => sendToParent({ ack: op } satisfies HarnessMessage);
  for (let i = 0; Date.now() < deadline; i++) {
    const mark = `${s.tag}x${i}`;
    const r = rnd();
    const n = Math.floor(rnd() * pool);
    let name = 'search';
    try {
      if (r < 0.27) {
        name = 'store';
        const content = `soak ${mark} ${words(rnd, 6)}`;
        const key = r < 0.22 ? soakKey(n) : undefined;
        const res = await memory.store(p, { content, name: mark, ...(key ? { key } : {}) });
        ids.push(res.id);
        await ack({ op: 'store', id: res.id, key: res.key, content, version: 1 });
      } else if (r < 0.45) {
        name = 'edit';
        const content = `soak ${mark} edited ${words(rnd, 6)}`;
        const res = await memory.edit(p, { key: soakKey(n), scope: 'agent', intent: 'soak edit', content });
        await ack({ op: 'edit', id: res.id, key: res.key, content, version: res.version });
      } else if (r < 0.58) {
        name = 'move';
        const to = (n + 1 + Math.floor(rnd() * (pool - 1))) % pool;
        const res = await memory.edit(p, { key: soakKey(n), scope: 'agent', intent: 'soak move', newKey: soakKey(to) });
        await ack({ op: 'move', id: res.id, key: res.key, version: res.version });
      } else if (r < 0.66) {
        name = 'delete';
        const res = await memory.delete(p, { key: soakKey(n), scope: 'agent' });
        await ack({ op: 'delete', id: res.id });
      } else if (r < 0.82 && ids.length > 0) {
        name = 'rate';
        const id = pick(ids, rnd);
        const useful = rnd() < 0.6;
        const taskId = `t${s.proc ?? 0}-${Math.floor(rnd() * 40)}`;
        const res = await memory.rate(p, { id, useful, taskId });
        await ack({ op: 'rate', id: res.id, useful, taskId });
      } else {
        const res = await memory.search(p, { query: `soak ${pick(WORDS, rnd)}`, limit: 10 });
        for (const hit of res) if (!ids.includes(hit.id)) ids.push(hit.id);
        await ack({ op: 'search', hits: res.length });
      }
    } catch (error) {
      const code = MemError.is(error) ? error.code : 'THROWN';
      const message = error instanceof Error ? error.message : String(error);
      await sendToParent({ refused: { op: name, code, message } } satisfies HarnessMessage);
    }
  }
}
