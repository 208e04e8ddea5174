import type { TranscriptMessage } from '@mem/core';
import type { CompactionStepHook, Tokenizer, TranscriptHeader, TranscriptStore } from '@mem/core/adapter';
import { expectMemError } from '../port-fixture.js';

/** Options the suite asks of a factory: a hook called before each compaction step (throwing simulates a crash). */
export interface TranscriptStoreTestOptions {
  onCompactionStep?: CompactionStepHook;
}

/** What a factory gives the suite: a fresh, empty store and how to clean it up. */
export interface TranscriptStoreFixture {
  store: TranscriptStore;
  cleanup: () => Promise<void>;
  /** Open another, independent instance on the same data (persistence, concurrency, recovery after a crash). */
  openAnother: (options?: TranscriptStoreTestOptions) => Promise<TranscriptStore>;
  /**
   * Make the store's data unreachable, as a lost connection or a vanished folder would (default: close the store).
   * A durable store must then answer `STORE_UNAVAILABLE`.
   */
  makeUnreachable?: () => Promise<void>;
}

export type TranscriptStoreFactory = (options: TranscriptStoreTestOptions) => Promise<TranscriptStoreFixture>;

/**
 * What each group of the suite gets from `describeTranscriptStore`: `setup` makes the test's fresh store, `another`
 * opens a second instance on its data (closed after the test), `setHook` sets what runs before each compaction step.
 */
export interface TranscriptSuite {
  setup(): Promise<TranscriptStoreFixture>;
  another(f: TranscriptStoreFixture, o?: TranscriptStoreTestOptions): Promise<TranscriptStore>;
  setHook(hook: CompactionStepHook | undefined): void;
}

export class SimulatedCrash extends Error {
  constructor(step: string) {
    super(`simulated crash before step "${step}"`);
  }
}

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
export const at = (ms: number) => new Date(T0 + ms).toISOString();
export const header = (id: string, ms = 0): TranscriptHeader => ({ conversationId: id, createdAt: at(ms) });
export const msg = (role: TranscriptMessage['role'], content: string, ms = 0): TranscriptMessage => ({
  role,
  content,
  at: at(ms),
});

/** Counts words: enough for the service checks here, and fast. */
export const wordTokenizer: Tokenizer = { id: 'words', count: (s) => s.split(/\s+/).filter(Boolean).length };

export const expectCode = expectMemError;

export const TRICKY_CONTENTS = [
  'plain text',
  'Unicode: naïve café — 東京 🚀 مرحبا עברית Ω≈ç√ e\u0301',
  'Markdown that looks like the format:\n---\n### user — 2026-03-01T12:00:00.000Z\n\\---\n## Interaction Log\n# Conversation Memory — x',
  '\nleading and trailing blank lines\n\n',
  'windows\r\nline endings\r\n',
  '```ts\nconst x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |',
  '   indented only',
];
