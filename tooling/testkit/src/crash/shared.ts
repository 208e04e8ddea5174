/**
 * The shapes and helpers the crash harness shares between its child side (./child.ts) and its parent side
 * (./checks.ts, ./campaign.ts, ./soak.ts). See ./index.ts for what the harness does.
 */
import {
  type ConversationOptions,
  ConversationService,
  createHashingEmbedder,
  KnowledgeService,
  Notebook,
} from '@mem/core';
import {
  type KnowledgeStore,
  type NotebookStore,
  systemClock,
  type Tokenizer,
  type TranscriptStore,
} from '@mem/core/adapter';

export type CrashWorkload = 'knowledge' | 'transcript' | 'notebook';
export type HarnessWorkload = CrashWorkload | 'mixed';

/** Adapter-specific location of the store, as JSON (e.g. `{ path }`, `{ url, schema }`, `{ root }`). */
export type HarnessTarget = Record<string, string | number | boolean>;

export interface HarnessPorts {
  knowledge?: KnowledgeStore;
  transcripts?: TranscriptStore;
  notebooks?: NotebookStore;
  close(): Promise<void>;
}

/** Open the ports a workload needs; the same function runs in the children and, to check, in the parent. */
export type OpenHarnessPorts = (target: HarnessTarget, workload: HarnessWorkload) => Promise<HarnessPorts>;

/** One operation as announced (`begin`) and as acknowledged (`ack`, with what the call returned). */
export type HarnessOp =
  | { op: 'store'; content: string; key?: string; id?: string; version?: number }
  | { op: 'edit'; content: string; id: string; key?: string; version?: number }
  | { op: 'move'; id: string; key: string; version?: number }
  | { op: 'delete'; id: string }
  | { op: 'rate'; id: string; useful: boolean; taskId: string }
  | { op: 'search'; hits: number }
  | { op: 'add'; content: string }
  | { op: 'compact'; summary: string }
  | { op: 'append'; file: string; line: string }
  | { op: 'replace'; file: string; old: string; line: string }
  | { op: 'drop'; file: string };

export type HarnessMessage =
  | { ready: true }
  | { begin: HarnessOp }
  | { ack: HarnessOp }
  | { refused: { op: string; code: string; message: string } }
  | { done: true };

export interface KnownDoc {
  id: string;
  key: string;
}

export interface HarnessSettings {
  workload: HarnessWorkload;
  target: HarnessTarget;
  tag: string;
  seed: number;
  space: string;
  agent: string;
  /** knowledge: documents of earlier runs the writer may edit and move. */
  docs?: KnownDoc[];
  /** notebook: the files (and marker lines) earlier runs left. */
  files?: Record<string, string[]>;
  /** mixed: run this long once the parent says go, then exit. */
  durationMs?: number;
  /** mixed: the number of shared keys writers compete for. */
  keyPool?: number;
  proc?: number;
}

/** Four characters a token: children need no real tokenizer (and the GPT one costs a start-up). */
const CHEAP_TOKENIZER: Tokenizer = { id: 'chars-4', count: (text) => Math.ceil(text.length / 4) };
export const NOTEBOOK_FILES = ['MEMORY.md', 'topics/alpha.md', 'beta.md'];
export const WORDS =
  'river stone lantern copper garden orbit maple signal harbor velvet quartz meadow falcon ember glacier canyon'.split(
    ' ',
  );
export const MARKER = /<[a-z0-9-]+>/g;
export const COMPACT_EVERY = 5;

export function words(rnd: () => number, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
}

/** Mostly short texts; one in ten spans several chunks, so torn multi-chunk writes would show. */
export function factText(mark: string, rnd: () => number): string {
  const long = rnd() < 0.1;
  return `${mark} ${words(rnd, 8)}${long ? `\n\n${Array.from({ length: 40 }, () => `${words(rnd, 12)}.`).join(' ')}` : ''}`;
}

export const pick = <T>(items: readonly T[], rnd: () => number): T => items[Math.floor(rnd() * items.length)]!;
export function memoryOver(ports: HarnessPorts): KnowledgeService {
  if (!ports.knowledge) throw new Error('the knowledge workload needs a knowledge store');
  return new KnowledgeService({ store: ports.knowledge, embedder: createHashingEmbedder(), clock: systemClock });
}
export function conversationOver(ports: HarnessPorts, space: string, agent: string) {
  if (!ports.transcripts) throw new Error('the transcript workload needs a transcript store');
  const options: Partial<ConversationOptions> = { contextLength: 1_000_000 };
  return new ConversationService({ store: ports.transcripts, tokenizer: CHEAP_TOKENIZER, options }).open({
    space,
    agentId: agent,
  });
}
export function notebookOver(ports: HarnessPorts): Notebook {
  if (!ports.notebooks) throw new Error('the notebook workload needs a notebook store');
  return new Notebook({ store: ports.notebooks, tokenizer: CHEAP_TOKENIZER });
}
/** The refusals a caller may get when several writers compete; anything else is a failure of the store. */
export const EXPECTED_REFUSALS = ['CONFLICT', 'KEY_TAKEN', 'NOT_FOUND', 'ALREADY_RATED'] as const;
/** A broken promise of the store: what was acknowledged, what was found. */
export class HarnessViolation extends Error {
  override name = 'HarnessViolation';
}

export const fail = (message: string): never => {
  throw new HarnessViolation(message);
};
