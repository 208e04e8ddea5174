/**
 * What a conversation holds in memory and how it reads (docs/conversations.md): the history entries with their
 * running token totals, and the assembly of a prompt within the budget. `Conversation` adds the writing and the
 * compaction on top.
 */
import { defaultTokenizer } from '../../adapters/gpt-tokenizer.js';
import { compressionThreshold, isSummaryMessage } from '../../domain/compaction.js';
import { stripHidden } from '../../domain/hidden-text.js';
import { checkName } from '../../domain/names.js';
import { RunningTokens } from '../../domain/token-budget.js';
import { isEmptyContent, renderMessageLine } from '../../domain/transcript-format.js';
import { type Logger, stderrLogger } from '../../ports/logger.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import type { Transcript, TranscriptHeader, TranscriptMessage, TurnMessage } from '../../ports/transcript-store.js';
import { extraTokens, type Framed, fitHistory, leftOutWarning, type PromptParts, promptParts } from './context.js';
import {
  type AssembledContext,
  type ContextInput,
  type ConversationDeps,
  type ConversationOptions,
  checkOptions,
  DEFAULT_CONVERSATION_OPTIONS,
} from './options.js';

export interface Entry {
  message: TranscriptMessage;
  line: string;
  tokens: number;
  chat: TurnMessage;
}

/**
 * The reading half of a conversation. Token counts are incremental: each message is counted once when it enters the
 * history and a running prefix sum is kept, so `tokens()`, `needsCompression()` and `context()` never re-tokenize
 * the history, and `context()` touches only the messages that fit.
 */
export abstract class ConversationView {
  readonly space: string;
  readonly agentId: string;
  readonly options: ConversationOptions;
  protected readonly tokenizer: Tokenizer;
  protected readonly logger: Logger;
  protected readonly fixed: Framed[] = [];
  protected readonly titleTokens: number;

  protected header: TranscriptHeader | null = null;
  protected persisted: Entry[] = [];
  protected session: Entry[] = [];
  /** Running token totals of the history entries (persisted then session). */
  protected readonly counts = new RunningTokens();
  private persistentCache: { key: string; message: TurnMessage } | null = null;

  constructor(deps: ConversationDeps) {
    this.space = checkName(deps.space, 'space');
    this.agentId = checkName(deps.agentId, 'agent');
    this.tokenizer = deps.tokenizer ?? defaultTokenizer();
    this.logger = deps.logger ?? stderrLogger;
    this.options = checkOptions({
      ...DEFAULT_CONVERSATION_OPTIONS,
      ...deps.options,
      retention: { ...DEFAULT_CONVERSATION_OPTIONS.retention, ...deps.options?.retention },
    });
    const overhead = this.options.messageOverheadTokens;
    if (deps.systemPrompt && !isEmptyContent(deps.systemPrompt)) {
      this.fixed.push({
        message: { role: 'system', content: deps.systemPrompt },
        tokens: this.tokenizer.count(deps.systemPrompt) + overhead,
      });
    }
    const rules = (deps.rules ?? []).filter((r) => !isEmptyContent(r));
    if (rules.length > 0) {
      const content = `## Rules\n\n${rules.map((r) => `- ${r}`).join('\n')}`;
      this.fixed.push({ message: { role: 'system', content }, tokens: this.tokenizer.count(content) + overhead });
    }
    this.titleTokens = this.tokenizer.count(this.options.persistentMemoryTitle) + overhead;
  }

  /** Load the stored transcript (once). */
  abstract load(): Promise<this>;

  protected rebuild(t: Transcript | null): void {
    this.header = t ? { ...t.header } : null;
    this.persisted = (t?.messages ?? []).map((m) => this.entry(m));
    this.session = [];
    this.counts.clear();
    for (const e of this.persisted) this.counts.push(e.tokens);
    this.persistentCache = null;
  }

  protected entry(message: TranscriptMessage): Entry {
    // What the model reads of a stored message: a transcript written before hidden characters were dropped keeps none.
    const line = stripHidden(renderMessageLine(message));
    return {
      message,
      line,
      tokens: this.tokenizer.count(line) + this.options.messageOverheadTokens,
      chat: { role: message.role, content: line },
    };
  }

  // ---------- reading ----------

  private get historyTokens(): number {
    return this.counts.total;
  }

  private get fixedTokens(): number {
    let t = 0;
    for (const f of this.fixed) t += f.tokens;
    return t + (this.persisted.length > 0 ? this.titleTokens : 0);
  }

  /** Tokens of the whole history (system prompt, rules, persistent memory, this session). O(1); call `load()` first. */
  tokens(): number {
    return this.fixedTokens + this.historyTokens;
  }

  /**
   * True when the prompt — the history plus what `input` adds (notebook, recall block, current turn, tool
   * definitions) — has reached threshold × contextLength (or contextLength − reserveTokens, if lower) and the history
   * holds something to compress besides a summary. O(1) in the history.
   */
  needsCompression(input: ContextInput = {}): boolean {
    const head = this.hasSummaryHead() ? 1 : 0;
    if (this.counts.length <= head) return false;
    const at = Math.min(compressionThreshold(this.options), this.options.contextLength - (input.reserveTokens ?? 0));
    return this.tokens() + extraTokens(this.parts(input)) >= at;
  }

  protected hasSummaryHead(): boolean {
    return this.persisted.length > 0 && isSummaryMessage(this.persisted[0]!.message);
  }

  protected parts(input: ContextInput): PromptParts {
    const overhead = this.options.messageOverheadTokens;
    return promptParts(input, this.fixed, (text) => this.tokenizer.count(text) + overhead);
  }

  /** The stored messages this instance knows: the loaded transcript then this session's messages. */
  async messages(): Promise<TranscriptMessage[]> {
    await this.load();
    return [...this.persisted, ...this.session].map((e) => ({ ...e.message }));
  }

  /** The full in-memory history: system prompt → rules → persistent memory → this session's messages. */
  async history(): Promise<TurnMessage[]> {
    await this.load();
    const out = this.fixed.map((f) => ({ ...f.message }));
    if (this.persisted.length > 0) out.push(this.persistentMessage(0, false));
    for (const e of this.session) out.push({ ...e.chat });
    return out;
  }

  /** Every message as `[<time>] <role>: <content>`, one per line. */
  async render(): Promise<string> {
    await this.load();
    return [...this.persisted, ...this.session].map((e) => e.line).join('\n');
  }

  /** The persistent-memory message: the summary line when `head` (and it is not in the range), then entries from `from`. */
  private persistentMessage(from: number, head: boolean): TurnMessage {
    const key = `${from}:${head}`;
    if (this.persistentCache?.key !== key) {
      const lines = this.persisted.slice(from).map((e) => e.line);
      if (head && from > 0) lines.unshift(this.persisted[0]!.line);
      this.persistentCache = {
        key,
        message: { role: 'system', content: `${this.options.persistentMemoryTitle}\n\n${lines.join('\n')}` },
      };
    }
    return { ...this.persistentCache.message };
  }

  /** Index of the newest turn's first entry (its user message) at or after `head`; the last entry when none. */
  private newestTurnStart(head: number): number {
    const n = this.counts.length;
    for (let i = n - 1; i >= head; i--) {
      const e = i < this.persisted.length ? this.persisted[i]! : this.session[i - this.persisted.length]!;
      if (e.message.role === 'user') return i;
    }
    return Math.max(head, n - 1);
  }

  /**
   * Assemble the messages for the next model call, in the order system prompt → rules → persistent memory
   * (notebook block, stored transcript) → this session's messages → recall block → current turn, within
   * contextLength − reserveTokens − the tool definitions' tokens. What does not fit is left out in this order: the
   * oldest history messages after the summary, then the recall block, then the notebook block; the system prompt,
   * rules, the summary, the newest turn and the current turn never are (`overBudget` says they alone did not fit).
   * Anything left out is reported in `leftOut` and logged as a warning (compaction should have made room first).
   * Cost grows with what fits, not with the length of the history.
   */
  async context(input: ContextInput = {}): Promise<AssembledContext> {
    await this.load();
    const parts = this.parts(input);
    const P = this.persisted.length;
    const head = this.hasSummaryHead() ? 1 : 0;
    const headTokens = head ? this.persisted[0]!.tokens : 0;
    const newest = this.newestTurnStart(head);
    const title = P > 0 ? this.titleTokens : 0;
    const budget = this.options.contextLength - (input.reserveTokens ?? 0) - parts.toolTokens;
    const kept = title + (parts.turn?.tokens ?? 0) + parts.fixed.reduce((t, f) => t + f.tokens, 0);
    const {
      first: k,
      notebook,
      recall,
      overBudget,
    } = fitHistory(this.counts, parts, {
      room: budget - kept,
      head,
      headTokens,
      newest,
    });
    const historyTokens = (from: number) => (head && from > 0 ? headTokens : 0) + this.counts.from(from);

    const messages: TurnMessage[] = parts.fixed.map((x) => x.message);
    let tokens = kept - title;
    if (notebook) {
      messages.push(notebook.message);
      tokens += notebook.tokens;
    }
    if (k < P || (head && P > 0)) {
      messages.push(this.persistentMessage(k, head === 1));
      tokens += title;
    }
    for (let i = Math.max(0, k - P); i < this.session.length; i++) messages.push(this.session[i]!.chat);
    tokens += historyTokens(k);
    if (recall) {
      messages.push(recall.message);
      tokens += recall.tokens;
    }
    if (parts.turn) messages.push(parts.turn.message);
    const leftOut = {
      messages: Math.max(0, k - head),
      recall: parts.recall !== null && !recall,
      notebook: parts.notebook !== null && !notebook,
    };
    const warning = leftOutWarning(leftOut, overBudget, tokens, budget);
    if (warning) this.logger.warn(warning, { space: this.space, agent: this.agentId, ...leftOut, tokens, budget });
    return { messages, tokens, omittedMessages: leftOut.messages, leftOut, toolTokens: parts.toolTokens, overBudget };
  }

  protected fixedWithoutTitle(): number {
    let t = 0;
    for (const f of this.fixed) t += f.tokens;
    return t;
  }
}
