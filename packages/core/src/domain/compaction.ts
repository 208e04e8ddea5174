/**
 * The compaction policy (docs/conversations.md): when to compress a conversation, and the three strategies that make room.
 * Pure functions over messages and their token counts.
 */
import { MemError } from '../errors.js';
import type { CompactionChange, Transcript, TranscriptMessage } from '../ports/transcript-store.js';
import { stripHidden } from './hidden-text.js';
import { SUMMARY_MARKER } from './transcript-format.js';

export type CompactionStrategy = 'summarize' | 'sliding-window' | 'drop-tool-results';
export const COMPACTION_STRATEGIES: readonly CompactionStrategy[] = [
  'summarize',
  'sliding-window',
  'drop-tool-results',
];

export interface CompactionPolicy {
  /** The model's context length in tokens. */
  contextLength: number;
  /** Compress when history tokens ≥ threshold × contextLength. */
  threshold: number;
  strategy: CompactionStrategy;
  /** The window strategies cut the history down to at most target × contextLength tokens. */
  target: number;
  /** drop-tool-results: a tool result of at least this many tokens is replaced by a placeholder… */
  largeToolResultTokens: number;
  /** …unless it is among the newest `keepRecent` messages. */
  keepRecent: number;
}

export const DEFAULT_COMPACTION_POLICY: CompactionPolicy = {
  contextLength: 128_000,
  threshold: 0.9,
  strategy: 'summarize',
  target: 0.5,
  largeToolResultTokens: 500,
  keepRecent: 6,
};

/** The token count at which compression fires. */
export function compressionThreshold(policy: Pick<CompactionPolicy, 'contextLength' | 'threshold'>): number {
  return policy.threshold * policy.contextLength;
}

/** True when a history of `tokens` tokens must be compressed before the next model call. */
export function shouldCompress(tokens: number, policy: Pick<CompactionPolicy, 'contextLength' | 'threshold'>): boolean {
  return tokens >= compressionThreshold(policy);
}

/** The system message that replaces a summarised conversation. */
export function summaryMessage(summary: string, at: string): TranscriptMessage {
  // A summary is model output: characters that render as nothing are not passed on.
  return { role: 'system', content: `${SUMMARY_MARKER}\n${stripHidden(summary).trim()}`, at };
}

export function isSummaryMessage(message: TranscriptMessage): boolean {
  return message.role === 'system' && message.content.startsWith(SUMMARY_MARKER);
}

/**
 * Where the messages a summary keeps verbatim start: the newest turn (from the last user message), when there is
 * something older to summarise and the turn takes at most `maxTokens`; else `messages.length` (summarise everything,
 * e.g. one long turn of tool calls).
 */
export function keptTurnStart(
  messages: readonly TranscriptMessage[],
  counts: readonly number[],
  maxTokens: number,
): number {
  let start = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      start = i;
      break;
    }
  }
  if (start === 0 || start === messages.length) return messages.length;
  let tokens = 0;
  for (let i = start; i < counts.length; i++) tokens += counts[i]!;
  return tokens <= maxTokens ? start : messages.length;
}

/** The one-line placeholder that stands for a removed tool result. */
export function toolResultPlaceholder(tokens: number): string {
  return `[old tool result of about ${tokens} tokens removed to save context; the full text is kept in the conversation archive]`;
}

/**
 * Sliding window: drop the oldest turns (a turn starts at a user message) until the messages fit in `budget`
 * tokens. The newest turn is always kept; a leading summary block is kept while it fits. Returns the kept messages.
 */
export function slidingWindow(
  messages: readonly TranscriptMessage[],
  counts: readonly number[],
  budget: number,
): TranscriptMessage[] {
  let total = counts.reduce((a, b) => a + b, 0);
  if (total <= budget) return [...messages];
  const keepSummary = messages.length > 0 && isSummaryMessage(messages[0]!) && counts[0]! <= budget / 2;
  let start = keepSummary ? 1 : 0;
  // Turn boundaries: indexes of user messages after `start`.
  const lastTurn = (() => {
    for (let i = messages.length - 1; i >= start; i--) if (messages[i]!.role === 'user') return i;
    return start;
  })();
  while (total > budget && start < lastTurn) {
    let next = start + 1;
    while (next < lastTurn && messages[next]!.role !== 'user') next++;
    for (let i = start; i < next; i++) total -= counts[i]!;
    start = next;
  }
  // Within the newest turn, drop single messages if it still does not fit (never the last one).
  while (total > budget && start < messages.length - 1) {
    total -= counts[start]!;
    start++;
  }
  return [...(keepSummary ? [messages[0]!] : []), ...messages.slice(start)];
}

/**
 * Drop old large tool results: every `tool` message of at least `largeToolResultTokens` tokens outside the newest
 * `keepRecent` messages becomes a one-line placeholder. Returns the new messages and how many were replaced.
 */
export function dropOldToolResults(
  messages: readonly TranscriptMessage[],
  counts: readonly number[],
  policy: Pick<CompactionPolicy, 'largeToolResultTokens' | 'keepRecent'>,
): { messages: TranscriptMessage[]; replaced: number } {
  const protectFrom = Math.max(0, messages.length - policy.keepRecent);
  let replaced = 0;
  const out = messages.map((m, i) => {
    if (m.role !== 'tool' || i >= protectFrom || counts[i]! < policy.largeToolResultTokens) return m;
    replaced++;
    return { ...m, content: toolResultPlaceholder(counts[i]!) };
  });
  return { messages: out, replaced };
}

/** `CONFLICT` when the transcript is no longer the snapshot a compaction was computed from (stores call this under their lock). */
export function checkCompactionBasis(current: Transcript, change: CompactionChange, agent: string): void {
  const { conversationId, messageCount } = change.basis;
  if (current.header.conversationId !== conversationId || current.messages.length < messageCount) {
    throw new MemError(
      'CONFLICT',
      `The transcript of agent "${agent}" changed since it was read (it is now conversation ${current.header.conversationId} with ${current.messages.length} messages; the compaction was computed from ${conversationId} with ${messageCount}). Another compaction got there first: read the transcript again and retry if it is still too long.`,
      {
        retryable: true,
        details: {
          current: { conversationId: current.header.conversationId, messages: current.messages.length },
          basis: change.basis,
        },
      },
    );
  }
}
