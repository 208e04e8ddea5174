import {
  COMPACTION_STRATEGIES,
  type CompactionPolicy,
  type CompactionStrategy,
  DEFAULT_COMPACTION_POLICY,
} from '../../domain/compaction.js';
import type { PersonalDataSetting } from '../../domain/secrets.js';
import { MemError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { SecretScanner } from '../../ports/secret-scanner.js';
import type { Summarizer, TokenUsage } from '../../ports/summarizer.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import type { ArchiveInfo, TranscriptStore, TurnMessage } from '../../ports/transcript-store.js';
import { contextSettingsInput } from '../../schemas-notebook.js';
import type { JsonValue } from '../../types-structured.js';

/** Every number of the conversation memory (docs/conversations.md), with defaults. */
export interface ConversationOptions extends CompactionPolicy {
  /** Tokens added per message for the chat framing (role markers), on top of its text. */
  messageOverheadTokens: number;
  /**
   * Personal data (payment cards, IBANs) in transcripts: redacted unless the space's policy is allow (a turn is never
   * refused, so refuse redacts too).
   */
  personalData?: PersonalDataSetting;
  /** Replace secrets by `[REDACTED:<kind>]` before anything is written (default true). */
  redactSecrets: boolean;
  /** Heading of the system message that carries the stored transcript. */
  persistentMemoryTitle: string;
  /** Archive retention applied after each compaction; null = keep forever (the default). */
  retention: { maxAgeDays: number | null; maxCount: number | null };
}

export const DEFAULT_CONVERSATION_OPTIONS: ConversationOptions = {
  ...DEFAULT_COMPACTION_POLICY,
  messageOverheadTokens: 4,
  redactSecrets: true,
  persistentMemoryTitle: '# Persistent Memory\n\nThe conversation so far, from your transcript (oldest first):',
  retention: { maxAgeDays: null, maxCount: null },
};

export interface ContextInput {
  /** The notebook block (`Notebook.inject(...).text`), placed with the persistent memory. */
  notebook?: string | undefined;
  /** The recall block (`### Relevant Past Knowledge` …) for this turn. */
  recall?: string | undefined;
  /** The current turn, not yet added to the conversation. */
  turn?: string | TurnMessage | undefined;
  /** Tokens kept free for the model's answer (default 0). */
  reserveTokens?: number | undefined;
  /**
   * The tool definitions the model call sends (any JSON: names, descriptions, input schemas): counted, as JSON text,
   * toward the budget and the compaction threshold, never put into the messages.
   */
  tools?: readonly unknown[] | undefined;
}

/** What `context()` left out because the prompt did not fit (the summary, the newest turn and the system prompt never are). */
export interface LeftOut {
  /** History messages between the summary and the newest turn, oldest first. */
  messages: number;
  /** The recall block (left out only when the newest turn did not fit with it). */
  recall: boolean;
  /** The notebook block (left out only when the newest turn did not fit even without the recall block). */
  notebook: boolean;
}

export interface AssembledContext {
  /** System prompt → rules → persistent memory (notebook, transcript) → this session's messages → recall → turn. */
  messages: TurnMessage[];
  /** Token count of `messages` (incremental estimate: each text counted once when it entered). */
  tokens: number;
  /** Oldest history messages left out because they did not fit in the context length (= `leftOut.messages`). */
  omittedMessages: number;
  /** Everything left out, and why nothing else was: see LeftOut. A warning is logged whenever something is. */
  leftOut: LeftOut;
  /** Tokens of the tool definitions (counted toward the budget, not in `tokens`). */
  toolTokens: number;
  /**
   * True when even the parts never left out (system prompt, rules, summary, newest turn, current turn) exceed
   * contextLength − reserve − toolTokens: the prompt is sent over budget rather than without them.
   */
  overBudget: boolean;
}

export type CompressionOutcome =
  | {
      status: 'compacted';
      strategy: CompactionStrategy;
      archive: ArchiveInfo;
      tokensBefore: number;
      tokensAfter: number;
      /** Messages appended by other writers after the snapshot, carried into the new transcript. */
      carried: number;
      summarizer?: string;
      usage?: TokenUsage;
      fallback?: { from: string; reason: string };
      /** drop-tool-results: tool results replaced by a placeholder. */
      replacedToolResults?: number;
      /** Window strategies: messages left out of the new transcript (kept in the archive). */
      droppedMessages?: number;
    }
  | { status: 'failed'; strategy: CompactionStrategy; tokensBefore: number; error: string }
  | { status: 'skipped'; strategy: CompactionStrategy; tokensBefore: number; reason: string };

export interface ConversationDeps {
  store: TranscriptStore;
  space: string;
  agentId: string;
  clock?: Clock | undefined;
  tokenizer?: Tokenizer | undefined;
  /** Writes the summary for the `summarize` strategy; default: the extractive summariser (keywords only, no embedder). */
  summarizer?: Summarizer | undefined;
  logger?: Logger | undefined;
  systemPrompt?: string | undefined;
  rules?: readonly string[] | undefined;
  options?: Partial<ConversationOptions> | undefined;
  /** An extra asynchronous secret scan after mem's own rules; what it finds is redacted too (docs/safety.md). */
  secretScanner?: SecretScanner | undefined;
}

/** The context window, threshold and strategy an agent's conversation uses (settable per agent). */
export type ContextSettings = Pick<ConversationOptions, 'contextLength' | 'threshold' | 'strategy'>;

/** Stored settings, re-checked on read (a hand-edited row must not break every later call): bad fields are dropped. */
export function storedSettings(state: JsonValue): Partial<ContextSettings> {
  const parsed = contextSettingsInput.safeParse(state);
  if (!parsed.success) return {};
  const out: Partial<ContextSettings> = {};
  for (const [k, v] of Object.entries(parsed.data)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** The options as given, or INVALID_INPUT naming the first bad one. */
export function checkOptions(o: ConversationOptions): ConversationOptions {
  const bad = (what: string) => new MemError('INVALID_INPUT', `Invalid conversation option: ${what}.`);
  if (!(Number.isFinite(o.contextLength) && o.contextLength > 0))
    throw bad(`contextLength must be a positive number of tokens (got ${o.contextLength})`);
  if (!(o.threshold > 0 && o.threshold <= 1)) throw bad(`threshold must be in (0, 1] (got ${o.threshold})`);
  if (!(o.target > 0 && o.target < 1)) throw bad(`target must be in (0, 1) (got ${o.target})`);
  if (!COMPACTION_STRATEGIES.includes(o.strategy))
    throw bad(`strategy must be one of ${COMPACTION_STRATEGIES.join(', ')} (got "${String(o.strategy)}")`);
  return o;
}
