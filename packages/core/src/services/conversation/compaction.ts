/**
 * What one compaction puts in place of a transcript snapshot, per strategy: a summary written by the summariser
 * (`summarize`), or the newest messages that fit the target (`sliding-window`, `drop-tool-results`). The conversation
 * archives the snapshot and writes the replacement (conversation.ts).
 */
import {
  type CompactionPolicy,
  type CompactionStrategy,
  dropOldToolResults,
  slidingWindow,
  summaryMessage,
} from '../../domain/compaction.js';
import { newId } from '../../domain/ids.js';
import { isEmptyContent } from '../../domain/transcript-format.js';
import type { Logger } from '../../ports/logger.js';
import type { Summarizer } from '../../ports/summarizer.js';
import type { CompactionChange, Transcript, TranscriptMessage } from '../../ports/transcript-store.js';
import type { CompressionOutcome } from './options.js';

export type Compacted = Extract<CompressionOutcome, { status: 'compacted' }>;

/** The messages that replace a snapshot, and what the outcome reports about them. */
export interface Replacement {
  messages: TranscriptMessage[];
  extra: Partial<Compacted>;
}

/** Why no replacement could be made: the text of the failure and the error behind it (null when none). */
export interface NoReplacement {
  failed: string;
  error: unknown;
}

/**
 * The `summarize` strategy: one summary block written by the summariser over the snapshot's messages before
 * `keepFrom` (cleaned like any transcript text), followed by the messages from `keepFrom` kept as they are (the
 * newest turn), in at most `maxTokens` when given. A fallback of the summariser is logged and reported; a throw or an empty summary is a failure.
 */
export async function summaryReplacement(
  deps: {
    summarizer: Summarizer;
    logger: Logger;
    space: string;
    agentId: string;
    cleanAll(texts: readonly string[]): Promise<string[]>;
  },
  snapshot: Transcript,
  at: string,
  keepFrom: number = snapshot.messages.length,
  maxTokens?: number,
): Promise<Replacement | NoReplacement> {
  const extra: Partial<Compacted> = {};
  let summary: string;
  try {
    const result = await deps.summarizer.summarize({
      messages: snapshot.messages.slice(0, keepFrom),
      agent: deps.agentId,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    });
    [summary] = (await deps.cleanAll([result.summary ?? ''])) as [string];
    extra.summarizer = result.summarizer;
    extra.usage = result.usage;
    if (result.fallback) {
      extra.fallback = result.fallback;
      deps.logger.warn(
        `summariser "${result.fallback.from}" fell back to "${result.summarizer}": ${result.fallback.reason}`,
        { space: deps.space, agent: deps.agentId },
      );
    }
  } catch (error) {
    return { failed: `summariser "${deps.summarizer.id}" failed`, error };
  }
  if (isEmptyContent(summary)) {
    return { failed: `summariser "${deps.summarizer.id}" returned an empty summary`, error: null };
  }
  return { messages: [summaryMessage(summary, at), ...snapshot.messages.slice(keepFrom)], extra };
}

/**
 * The window strategies: the newest messages whose tokens fit `budget`; `drop-tool-results` first replaces old tool
 * results by a placeholder (re-counting only the messages it changed with `recount`).
 */
export function windowReplacement(
  strategy: Exclude<CompactionStrategy, 'summarize'>,
  snapshot: Transcript,
  counts: number[],
  budget: number,
  policy: CompactionPolicy,
  recount: (message: TranscriptMessage) => number,
): Replacement {
  const extra: Partial<Compacted> = {};
  let messages = snapshot.messages;
  let current = counts;
  if (strategy === 'drop-tool-results') {
    const dropped = dropOldToolResults(messages, counts, policy);
    extra.replacedToolResults = dropped.replaced;
    messages = dropped.messages;
    current = messages.map((m, i) => (m === snapshot.messages[i] ? counts[i]! : recount(m)));
  }
  const replacement = slidingWindow(messages, current, budget);
  extra.droppedMessages = messages.length - replacement.length;
  return { messages: replacement, extra };
}

/**
 * The change that replaces the transcript `snapshot` by `messages` at `now`: a new conversation id, the snapshot as
 * the basis (so a compaction that got there first makes it CONFLICT), the old transcript kept as an archive.
 */
export function replacementChange(snapshot: Transcript, messages: TranscriptMessage[], now: Date): CompactionChange {
  return {
    basis: { conversationId: snapshot.header.conversationId, messageCount: snapshot.messages.length },
    header: { conversationId: newId(now), createdAt: now.toISOString() },
    messages,
    archivedAt: now.toISOString(),
  };
}
