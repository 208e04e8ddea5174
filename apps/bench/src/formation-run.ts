/**
 * One run of the formation bench: every dialogue through `stack.distill` on a fresh stack of its own (its own clock,
 * set to each session's time, so that "next Tuesday" and createdAt are what they were then), one distill call per
 * session, then the probes searched as the user's agent would: current memories, and as of each probe's date.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createStack,
  type Principal,
  type Stack,
} from '@mem/core';
import { type KnowledgeStore, ManualClock, type StatementExtractor } from '@mem/core/adapter';
import { createSqliteStore } from '@mem/store-sqlite';
import type { Dialogue, Turn } from './formation-data.js';
import { type DialogueScore, type Observed, type Seen, scoreDialogue } from './formation-score.js';

export type StoreKind = 'in-memory' | 'sqlite';
export const STORE_KINDS: readonly StoreKind[] = ['in-memory', 'sqlite'];

/** A knowledge store per dialogue: in memory, or one SQLite file in a temporary folder that every dialogue shares. */
export interface StoreMaker {
  kind: StoreKind;
  make(): KnowledgeStore;
  dispose(): void;
}

export function storeMaker(kind: StoreKind): StoreMaker {
  if (kind === 'in-memory') return { kind, make: () => createInMemoryKnowledgeStore(), dispose: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-formation-'));
  const path = join(dir, 'formation.db');
  return {
    kind,
    make: () => createSqliteStore({ path }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const MINUTE = 60_000;
/** How many memories a probe's search returns (a dialogue forms a handful: effectively all that match at all). */
const SEARCH_LIMIT = 10;

const role = (t: Turn) => (t.by === 'paste' ? 'user' : t.by);

/** The messages of one session as distill takes them: a minute apart, pasted content marked untrusted. */
export function sessionMessages(d: Dialogue, index: number) {
  const s = d.sessions[index]!;
  const start = Date.parse(s.at);
  return s.turns.map((t, k) => ({
    id: `${d.id}-s${index + 1}-t${k + 1}`,
    role: role(t),
    content: t.text,
    at: new Date(start + k * MINUTE).toISOString(),
    ...(t.by === 'paste' ? { untrusted: true } : {}),
  }));
}

const seen = (r: { id: string; content: string; validFrom: string | null; validTo: string | null }): Seen => ({
  id: r.id,
  content: r.content,
  validFrom: r.validFrom,
  validTo: r.validTo,
});

async function observe(stack: Stack, clock: ManualClock, p: Principal, d: Dialogue): Promise<Observed> {
  let messages = 0;
  let distillMs = 0;
  const decisions: Record<string, number> = {};
  const failures: Record<string, number> = {};
  const tokens = { input: 0, output: 0 };
  for (let i = 0; i < d.sessions.length; i++) {
    const batch = sessionMessages(d, i);
    // Distilled as the session ends, as a live agent would.
    clock.set(Date.parse(batch.at(-1)!.at) + MINUTE);
    const t0 = performance.now();
    const report = await stack.distill(p, { messages: batch });
    distillMs += performance.now() - t0;
    messages += batch.length;
    for (const x of report.decisions) decisions[x.decision] = (decisions[x.decision] ?? 0) + 1;
    for (const f of report.failures) failures[f.code] = (failures[f.code] ?? 0) + 1;
    tokens.input += report.usage.inputTokens;
    tokens.output += report.usage.outputTokens;
  }
  // The end state is read the day after the last session.
  const end = Date.parse(d.sessions.at(-1)!.at) + 86_400_000;
  clock.set(end);
  const all: Seen[] = [];
  for await (const r of stack.knowledge.export(p)) if (r.source === 'distilled') all.push(seen(r));
  const now = new Date(end).toISOString();
  const current = all.filter((m) => m.validTo === null || m.validTo > now);
  const search = async (query: string, asOf?: string) =>
    (
      await stack.knowledge.search(p, {
        query,
        source: 'distilled',
        limit: SEARCH_LIMIT,
        ...(asOf ? { asOf } : {}),
      })
    ).map((r) => r.content);
  const retrieved: string[][] = [];
  for (const probe of d.probes) retrieved.push(await search(probe.query));
  const asOf: string[][] = [];
  for (const q of d.asOf ?? []) asOf.push(await search(q.query, q.asOf));
  return { all, current, retrieved, asOf, messages, distillMs, decisions, failures, tokens };
}

export interface RunOptions {
  dialogues: readonly Dialogue[];
  store: StoreMaker;
  /** Absent: the stack's default, the offline extractor. */
  extractor?: StatementExtractor;
  /** Dialogues run at once (each on its own stack). */
  concurrency?: number;
  /** Called after each dialogue (progress). */
  onDialogue?: (done: number, total: number) => void;
}

/** Every dialogue distilled and scored, in the order given. */
export async function runDialogues(o: RunOptions): Promise<DialogueScore[]> {
  const embedder = createHashingEmbedder({ dimension: 256 });
  const out: DialogueScore[] = new Array(o.dialogues.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < o.dialogues.length; i = next++) {
      const d = o.dialogues[i]!;
      const clock = new ManualClock(d.sessions[0]!.at);
      const stack = createStack({
        knowledge: o.store.make(),
        embedder,
        clock,
        ...(o.extractor ? { extractor: o.extractor } : {}),
      });
      const p: Principal = { space: `formation-${d.id}`, agentId: 'assistant', role: 'worker', userId: 'user-1' };
      try {
        out[i] = scoreDialogue(d, await observe(stack, clock, p, d));
      } finally {
        await stack.close();
      }
      o.onDialogue?.(++done, o.dialogues.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 1) }, worker));
  return out;
}
