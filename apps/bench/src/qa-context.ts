/**
 * Where `mem bench qa` (src/qa.ts) gets the context it answers from, one source per stack:
 * - `mem`: the default stack (SQLite + the local embedder), every turn one memory in a space per conversation, as in
 *   `mem bench retrieval`; the top k memories of a search for the question, best first, each with its time;
 * - `full-context`: the whole conversation, session by session, each session headed by its time;
 * - `mem0`: the mem0 peer (src/peers/) on the same turns and vectors; its top k turns, each with its time.
 * Search times are taken with the question's vector already computed (the embedder is warmed first), as in
 * `mem bench retrieval`: the engine's time (plus, for mem0, its HTTP hop to the embedder), not the embedding's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStack, MemError, type Principal } from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { createSqliteStore } from '@mem/store-sqlite';
import type { Conversation, Question, Turn } from './locomo.js';
import { openRetrievalPeer } from './peers/index.js';
import { spokenTime } from './qa-prompts.js';

export const QA_STACKS = ['mem', 'full-context', 'mem0'] as const;
export type QaStack = (typeof QA_STACKS)[number];

export interface Retrieved {
  /** The context handed to the answer model. */
  context: string;
  /** How many memories (turns) it holds. */
  items: number;
  ms: number;
}

export interface ContextSource {
  name: QaStack;
  retrieve(c: Conversation, q: Question): Promise<Retrieved>;
  /** Turns mem refused to keep at ingest (a secret, personal data), by `conversation/dia id` → code. */
  refused?: Map<string, string>;
  close(): Promise<void>;
}

/** One memory line: `[13:56 on 8 May 2023] Caroline: …`. */
const line = (createdAt: string, content: string) => `[${spokenTime(createdAt)}] ${content}`;

/** An embedder that remembers vectors by text, so that mem and mem0 share one embedding pass. */
export function cachedEmbedder(inner: Embedder): Embedder & { warm(texts: string[]): Promise<void> } {
  const cache = new Map<string, Float32Array>();
  const embed = async (texts: string[]) => {
    const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
    if (missing.length > 0) {
      const vectors = await inner.embed(missing);
      for (const [i, t] of missing.entries()) cache.set(t, vectors[i]!);
    }
    return texts.map((t) => cache.get(t)!);
  };
  return { id: inner.id, dimension: inner.dimension, embed, warm: async (texts) => void (await embed(texts)) };
}

/** The question as searched (long questions cut, as the retrieval bench cuts them). */
const query = (q: Question) => q.question.slice(0, 4000);

/** The whole conversation: each session's time, then its turns. */
export function fullContext(c: Conversation): string {
  const sessions = new Map<number, Turn[]>();
  for (const t of c.turns) sessions.set(t.session, [...(sessions.get(t.session) ?? []), t]);
  return [...sessions]
    .map(([n, turns]) => `Session ${n}, ${spokenTime(turns[0]!.createdAt)}:\n${turns.map((t) => t.content).join('\n')}`)
    .join('\n\n');
}

const REFUSALS = new Set(['SECRET_DETECTED', 'PERSONAL_DATA_DETECTED', 'INVALID_INPUT']);

async function openMem(conversations: Conversation[], embedder: Embedder, k: number): Promise<ContextSource> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-qa-'));
  const store = createSqliteStore({ path: join(dir, 'qa.db') });
  const stack = createStack({ knowledge: store, embedder });
  const refused = new Map<string, string>();
  const principal = (c: Conversation): Principal => ({ space: c.id, agentId: 'bench', role: 'worker' });
  for (const c of conversations) {
    for (const t of c.turns) {
      try {
        await stack.knowledge.import(principal(c), { content: t.content, createdAt: t.createdAt, source: 'manual' });
      } catch (error) {
        // A turn mem refuses to keep is counted and left out, as in the retrieval bench.
        if (!MemError.is(error) || !REFUSALS.has(error.code)) throw error;
        refused.set(`${c.id}/${t.diaId}`, error.code);
      }
    }
  }
  return {
    name: 'mem',
    refused,
    async retrieve(c, q) {
      const t0 = performance.now();
      const results = await stack.knowledge.search(principal(c), { query: query(q), limit: k });
      const ms = performance.now() - t0;
      return { context: results.map((r) => line(r.createdAt, r.content)).join('\n'), items: results.length, ms };
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openMem0(conversations: Conversation[], embedder: Embedder, k: number): Promise<ContextSource> {
  const peer = await openRetrievalPeer('mem0', conversations, embedder);
  const turns = new Map(conversations.map((c) => [c.id, new Map(c.turns.map((t) => [t.diaId, t]))]));
  return {
    name: 'mem0',
    async retrieve(c, q) {
      const { ids, ms } = await peer.search(c, query(q), k);
      const found = ids.map((id) => turns.get(c.id)!.get(id)).filter((t): t is Turn => t !== undefined);
      return { context: found.map((t) => line(t.createdAt, t.content)).join('\n'), items: found.length, ms };
    },
    close: () => peer.close(),
  };
}

/** The context source of a stack. `embedder` is needed by mem and mem0 (warmed with every text beforehand). */
export async function openContextSource(
  name: QaStack,
  conversations: Conversation[],
  k: number,
  embedder: () => Embedder,
): Promise<ContextSource> {
  if (name === 'mem') return openMem(conversations, embedder(), k);
  if (name === 'mem0') return openMem0(conversations, embedder(), k);
  return {
    name,
    async retrieve(c) {
      const t0 = performance.now();
      const context = fullContext(c);
      return { context, items: c.turns.length, ms: performance.now() - t0 };
    },
    close: async () => {},
  };
}
