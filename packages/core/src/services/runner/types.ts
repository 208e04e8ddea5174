/** The runner's options, inputs and results (docs/runner.md), and the context windows of known models. */
import type { CompactionStrategy } from '../../domain/compaction.js';
import type { Summarizer, TokenUsage } from '../../ports/summarizer.js';
import type { TurnMessage } from '../../ports/transcript-store.js';
import type { Stack } from '../../stack.js';
import type { Principal } from '../../types.js';
import type { CompressionOutcome } from '../conversation/options.js';
import type { StoreResult } from '../knowledge/index.js';
import type { Runner } from './runner.js';

/** Context window, threshold and strategy a runner uses when the caller sets none. */
export interface ModelContextDefaults {
  contextWindow: number;
  threshold: number;
  strategy: CompactionStrategy;
}

/** Context windows of well-known model families, first match wins; anything else gets 128,000 tokens. */
const MODEL_WINDOWS: readonly [RegExp, number][] = [
  [/gpt-4\.1/i, 1_047_576],
  [/gpt-5/i, 400_000],
  [/gpt-4o|gpt-4-turbo/i, 128_000],
  [/gpt-3\.5/i, 16_385],
  [/gpt-4/i, 8_192],
  [/(^|\/)o[1345](-|$)/i, 200_000],
  [/claude/i, 200_000],
  [/gemini/i, 1_048_576],
  [/llama-?3\.[1-3]/i, 128_000],
  [/llama/i, 8_192],
  [/mistral|mixtral|qwen/i, 32_768],
];

/** The defaults for a model id: its family's context window (128,000 when unknown), threshold 0.9, `summarize`. */
export function modelContextDefaults(model?: string | null): ModelContextDefaults {
  const hit = model ? MODEL_WINDOWS.find(([re]) => re.test(model)) : undefined;
  return { contextWindow: hit?.[1] ?? 128_000, threshold: 0.9, strategy: 'summarize' };
}

export interface RunnerOptions {
  /** The model id; picks the default context window (`modelContextDefaults`). */
  model?: string | undefined;
  /** The model's context window in tokens (default: per model). */
  contextWindow?: number | undefined;
  /** Compress when the context reaches threshold × contextWindow (default 0.9). */
  threshold?: number | undefined;
  /** `summarize` (default), `sliding-window` or `drop-tool-results`. */
  strategy?: CompactionStrategy | undefined;
  /** Writes compaction and session summaries (default: the stack's summariser for compaction, the template one for sessions). */
  summarizer?: Summarizer | undefined;
  /** Tokens kept free for the model's answer (default 0). */
  reserveTokens?: number | undefined;
  /** Most memories in the recall block (default: the knowledge service's `recallLimit`). */
  recallLimit?: number | undefined;
  /** Role of the recall block's message: `user` (default, accepted by every provider mid-conversation) or `system`. */
  recallRole?: 'user' | 'system' | undefined;
  /**
   * Distil the conversation into formed memories (docs/formation.md) as it goes: in the background once
   * `distillTokens` of new messages are written, before a compaction archives messages, and at `endSession`.
   * Default true; false turns it off.
   */
  distill?: boolean | undefined;
  /** Tokens of new messages that start a background distillation (default 2,000). */
  distillTokens?: number | undefined;
}

/**
 * What an adapter that puts the runner around a framework's model calls takes (the AI SDK middleware, the LangGraph
 * memory node): the stack, the runner's options, and what each turn of the loop is given.
 */
export interface LoopOptions extends RunnerOptions {
  stack: Stack;
  /** A runner to share (e.g. with code that calls `endTask`); default: a new one over `stack` with these options. */
  runner?: Runner | undefined;
  /** Put before the framework's own system messages. */
  systemPrompt?: string | undefined;
  rules?: readonly string[] | undefined;
  /** The task (the recall query) and its id. */
  task?: string | undefined;
  taskId?: string | undefined;
  /** Called with each turn's context report (tokens, compaction, recalled memories, model calls and their usage). */
  onReport?: ((report: ContextReport) => void) | undefined;
}

/** Options after defaults. */
export interface ResolvedRunnerOptions {
  model: string | null;
  contextWindow: number;
  threshold: number;
  strategy: CompactionStrategy;
  reserveTokens: number;
  recallLimit: number | undefined;
  recallRole: 'user' | 'system';
  distill: boolean;
  distillTokens: number;
}

export interface TurnInput {
  principal: Principal;
  /** The task text: the recall query. Later turns of the same `taskId` may leave it out. */
  task?: string | undefined;
  /** Ties turns, recall and the task memory together. */
  taskId?: string | undefined;
  systemPrompt?: string | undefined;
  rules?: readonly string[] | undefined;
  /** The messages since the last turn; written through before the context is assembled. */
  messages?: readonly TurnMessage[] | undefined;
  /**
   * The newest N history messages the caller sends itself in its own format (a framework's tool calls and results);
   * they are left out of `messages` and the recall block goes last. Default 0.
   */
  omitNewest?: number | undefined;
  /** The tool definitions the model call sends (JSON): counted toward the budget and the compaction threshold. */
  tools?: readonly unknown[] | undefined;
}

/**
 * A model call a turn (or a task's or session's end) made and what it spent: `compaction` and `session-summary` by
 * the summariser, `recall-embedding` (the recall query) and `memory-embedding` (the stored task or session memory) by
 * the embedder, `distillation` by the statement extractor (each distillation that finished since the last report,
 * once). Calls that spent no tokens (a local embedder, the offline extractor) are not listed.
 */
export interface SpentTokens {
  operation: 'compaction' | 'session-summary' | 'recall-embedding' | 'memory-embedding' | 'distillation';
  by: string;
  usage: TokenUsage;
}

/**
 * Why a distillation ran: a full batch, a compaction about to archive, a session's end, a process's first turn for
 * the agent and user (what an earlier process left), or `Runner.distill` (a flush).
 */
export type DistillationTrigger = 'batch' | 'compaction' | 'session-end' | 'catch-up' | 'flush';

/** What distillations read, decided and spent (one run, or the sum of many). */
export interface DistillationCounts {
  /** Messages read. */
  messages: number;
  /** Decisions: new memories, superseding ones, closed ones, known ones whose evidence grew (0 in review mode). */
  add: number;
  update: number;
  invalidate: number;
  noop: number;
  /** Review mode: proposals put in the review queue instead (`mem distill review`). */
  queued: number;
  /** Proposals that could not become memories (a secret, a broken answer…): see `mem distill --json` for why. */
  failures: number;
  usage: TokenUsage;
}

/** One distillation the runner ran: what it read and decided, and what it spent. */
export interface DistillationRun extends DistillationCounts {
  trigger: DistillationTrigger;
  /** When it started. */
  at: string;
  /** Messages not read (tool results, untrusted). */
  skipped: number;
  extractor: string;
  model: string | null;
  /** Why the run failed (the transcript is kept; the next run reads the same messages), else null. */
  error: string | null;
}

/** The runner's distillation for the report: null when it is off. */
export interface DistillationStatus {
  batchTokens: number;
  /** Tokens written since the last distillation started. */
  pendingTokens: number;
  /** A distillation is running in the background now. */
  running: boolean;
  /** Distillations that finished since the last report (each reported once). */
  finished: DistillationRun[];
}

/** Counts over every distillation a runner ran (`Runner.distillationStats`). */
export interface DistillationTotals extends DistillationCounts {
  runs: number;
  failedRuns: number;
}

/** What assembleTurn did and what the context holds. */
export interface ContextReport {
  model: string | null;
  contextWindow: number;
  threshold: number;
  strategy: CompactionStrategy;
  /** Tokens at which compaction fires: threshold × contextWindow. */
  compressAt: number;
  /** Tokens of the assembled context (with the tokenizer of the stack), the omitted newest messages included. */
  tokens: number;
  reserveTokens: number;
  /** Oldest history messages left out because they did not fit (after the summary, before the newest turn). */
  omittedMessages: number;
  /** What the context left out to fit (history messages, the recall block, the notebook block); a warning is logged. */
  leftOut: { messages: number; recall: boolean; notebook: boolean };
  /** Tokens of the tool definitions counted toward the budget. */
  toolTokens: number;
  /** True when the system prompt, summary and newest turn alone exceed the budget (sent anyway). */
  overBudget: boolean;
  /** Tokens of the notebook block (0 without a notebook). */
  notebookTokens: number;
  /** The memories in the recall block. */
  recalled: { id: string; key: string; name: string; similarity: number | null; relevance: number }[];
  recallQuery: string | null;
  taskId: string | null;
  /** Messages written through by this call. */
  written: number;
  /** What the compaction check did (null: under the threshold). */
  compaction: CompressionOutcome | null;
  /** The background distillation of this agent and user (null: the runner's `distill` is off). */
  distillation: DistillationStatus | null;
  /** Model calls made for this turn and their token usage. */
  spent: SpentTokens[];
  /** Sum of `spent`. */
  usage: TokenUsage;
}

export interface AssembledTurn {
  /** The messages to send, oldest first. */
  messages: TurnMessage[];
  report: ContextReport;
}

export interface RecordInput {
  principal: Principal;
  messages: readonly TurnMessage[];
}

export interface EndTaskInput {
  principal: Principal;
  taskId: string;
  /** What was done and learned: the content of the task memory. */
  summary: string;
  /** The task text (default: the one given to assembleTurn for this taskId). */
  task?: string | undefined;
  outcome?: 'success' | 'failure' | 'partial' | undefined;
  /** A task the agent started on its own (a schedule, a trigger): no memory unless `persistMemory`. */
  automatic?: boolean | undefined;
  persistMemory?: boolean | undefined;
  tags?: readonly string[] | undefined;
  /** Ratings of recalled memories for this task (recorded with its taskId). */
  ratings?: readonly { id: string; useful: boolean; note?: string | undefined }[] | undefined;
}

export interface EndTaskResult {
  taskId: string;
  stored: StoreResult | null;
  /** Why no memory was stored. */
  skipped?: string;
  rated: number;
  /** Model calls made to end the task (the embedding of its memory) and their token usage. */
  spent: SpentTokens[];
  /** Sum of `spent`. */
  usage: TokenUsage;
}

export interface EndSessionInput {
  principal: Principal;
  /** The summary to store; without it the summariser writes one from the transcript. */
  summary?: string | undefined;
  /** Summarise only the messages written at or after this time (ISO-8601; e.g. when the session started). */
  since?: string | undefined;
  tags?: readonly string[] | undefined;
}

export interface EndSessionResult {
  stored: StoreResult | null;
  skipped?: string;
  /** The distillation of what the transcript still held undistilled (null: the runner's `distill` is off). */
  distillation: DistillationRun | null;
  /** Model calls made to end the session (the summariser, the embedding of its memory) and their token usage. */
  spent: SpentTokens[];
  /** Sum of `spent`. */
  usage: TokenUsage;
}
