/** The options of `MemMastraMemory`, and their checks (bad options fail when the memory is made). */
import type { MemoryConfig } from '@mastra/core/memory';
import { checkName, MemError, type Runner, type Stack } from '@mem/core';

/** mem's recall in place of Mastra's vector search: how many memories, and the injection threshold. */
export interface MemRecallOptions {
  /** Most memories in the recall block (default: the stack's `recallLimit`). */
  topK?: number | undefined;
  /** The injection threshold on match confidence, 0–1 (default: the stack's). */
  threshold?: number | undefined;
}

/** Mastra's memory options as mem serves them. */
export interface MemMastraMemoryConfig {
  /** How many of the thread's newest messages go to the model (default 10; false: none). */
  lastMessages?: number | false | undefined;
  /** mem's recall block for the newest user message (default on; false: off). No vector store or embedder. */
  semanticRecall?: boolean | MemRecallOptions | undefined;
  /** Mastra's working memory (Markdown template; `scope` resource (default) or thread). */
  workingMemory?: { enabled: boolean; scope?: 'resource' | 'thread'; template?: string } | undefined;
  /** Read the memory but never write it. */
  readOnly?: boolean | undefined;
}

export interface MemMastraMemoryOptions {
  /** The stack from createStack, with a transcript store (and session state for resource-scoped working memory). */
  stack: Stack;
  /** The mem space (tenant) the threads live in. */
  space: string;
  /** The memory's id (default `mem`). */
  id?: string | undefined;
  options?: MemMastraMemoryConfig | undefined;
  /** A runner to share (default: `stack.runner({ distill, distillTokens })`). */
  runner?: Runner | undefined;
  /** Distil what users say into formed memories (default true). */
  distill?: boolean | undefined;
  /** Tokens of new messages that start a background distillation (default 2,000). */
  distillTokens?: number | undefined;
}

/** The checked options: mem's recall settings (false: off) and what is handed to MastraMemory. */
export function checkOptions(options: MemMastraMemoryOptions): {
  recall: MemRecallOptions | false;
  mastraOptions: MemoryConfig;
} {
  if (!options || typeof options !== 'object' || !options.stack) {
    throw new MemError(
      'INVALID_INPUT',
      'MemMastraMemory needs { stack, space }: new MemMastraMemory({ stack: createStack({ stores: createSqliteStores({ path }) }), space: "app" }).',
    );
  }
  if (!options.stack.conversations) {
    throw new MemError(
      'CAPABILITY_MISSING',
      'MemMastraMemory keeps threads in mem transcripts: give createStack a transcript store (e.g. createSqliteStores({ path }) from @mem/store-sqlite).',
    );
  }
  checkName(options.space, 'space');
  const { semanticRecall, ...mastraOptions } = options.options ?? {};
  if ((mastraOptions.workingMemory as { schema?: unknown } | undefined)?.schema !== undefined) {
    throw new MemError(
      'INVALID_INPUT',
      'MemMastraMemory: workingMemory.schema is not supported; use a Markdown `template`.',
    );
  }
  const recall = semanticRecall === undefined || semanticRecall === true ? {} : semanticRecall;
  if (recall !== false && (typeof recall !== 'object' || recall === null)) {
    throw new MemError(
      'INVALID_INPUT',
      'MemMastraMemory: semanticRecall must be true, false or { topK?, threshold? }.',
    );
  }
  if (recall && recall.topK !== undefined && !(Number.isInteger(recall.topK) && recall.topK >= 1 && recall.topK <= 50))
    throw new MemError(
      'INVALID_INPUT',
      `MemMastraMemory: semanticRecall.topK must be a whole number from 1 to 50 (got ${recall.topK}).`,
    );
  if (recall && recall.threshold !== undefined && !(recall.threshold >= 0 && recall.threshold <= 1))
    throw new MemError(
      'INVALID_INPUT',
      `MemMastraMemory: semanticRecall.threshold must be from 0 to 1 (got ${recall.threshold}).`,
    );
  return { recall, mastraOptions: mastraOptions as MemoryConfig };
}
