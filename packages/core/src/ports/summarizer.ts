import type { TranscriptMessage } from './transcript-store.js';

export interface SummarizeInput {
  /** The messages to summarise, oldest first (a previous `[Compressed Memory Summary]` block may lead). */
  messages: readonly TranscriptMessage[];
  /** The agent whose conversation this is (for the prompt). */
  agent?: string;
  /**
   * Most tokens the summary may take (compaction passes what is left of its target once the kept turn, the system
   * prompt and the rest of the prompt are counted). A summariser keeps to the lower of this and its own limit.
   */
  maxTokens?: number;
}

/** Tokens a summariser spent (all zero for summarisers that call no model). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface SummaryResult {
  summary: string;
  usage: TokenUsage;
  /** Id of the summariser that wrote `summary` (the fallback's id when it fell back). */
  summarizer: string;
  /** Set when the primary summariser failed or answered too little and a fallback wrote the summary. */
  fallback?: { from: string; reason: string };
}

/**
 * Turns a conversation into a summary that replaces it at compaction (docs/configuration.md).
 * Implementations: the extractive (the default) and template summarisers in @mem/core, the LLM summariser in
 * @mem/summarizer-llm.
 * A summariser may throw; the conversation service then logs the failure and keeps the transcript.
 */
export interface Summarizer {
  readonly id: string;
  summarize(input: SummarizeInput): Promise<SummaryResult>;
}

export const NO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** The sum of token usages (zero for none). */
export function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  const u = { ...NO_USAGE };
  for (const x of usages) {
    u.inputTokens += x.inputTokens;
    u.outputTokens += x.outputTokens;
    u.totalTokens += x.totalTokens;
  }
  return u;
}

/**
 * The `usage` block of an OpenAI-compatible answer (chat: prompt/completion/total tokens; embeddings: prompt/total
 * tokens) as a TokenUsage. Missing or malformed counts are 0; a missing total is input + output.
 */
export function openAIUsage(usage: unknown): TokenUsage {
  const u = (usage ?? {}) as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  const count = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.floor(x) : null);
  const input = count(u.prompt_tokens) ?? 0;
  const output = count(u.completion_tokens) ?? 0;
  return { inputTokens: input, outputTokens: output, totalTokens: count(u.total_tokens) ?? input + output };
}
