import { defaultTokenizer } from '../adapters/gpt-tokenizer.js';
import { createTemplateSummarizer } from '../adapters/template-summarizer.js';
import { contextSettingsSessionId } from '../domain/agent-sessions.js';
import { invalidArchiveId, parseArchiveId } from '../domain/archive-names.js';
import {
  COMPACTION_STRATEGIES,
  type CompactionPolicy,
  type CompactionStrategy,
  DEFAULT_COMPACTION_POLICY,
  dropOldToolResults,
  shouldCompress,
  slidingWindow,
  summaryMessage,
} from '../domain/compaction.js';
import { newId } from '../domain/ids.js';
import { checkName } from '../domain/names.js';
import { PERSONAL_DATA_RULES, type PersonalDataSetting, personalDataPolicy, redactSecrets } from '../domain/secrets.js';
import { RunningTokens } from '../domain/token-budget.js';
import { isEmptyContent, renderMessageLine } from '../domain/transcript-format.js';
import { MemError } from '../errors.js';
import { type Clock, systemClock } from '../ports/clock.js';
import { type Logger, stderrLogger } from '../ports/logger.js';
import type { SecretScanner } from '../ports/secret-scanner.js';
import type { SessionStateStore } from '../ports/session-state-store.js';
import type { Summarizer, TokenUsage } from '../ports/summarizer.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import {
  type ArchiveInfo,
  TRANSCRIPT_ROLES,
  type Transcript,
  type TranscriptHeader,
  type TranscriptMessage,
  type TranscriptRole,
  type TranscriptStore,
} from '../ports/transcript-store.js';
import { parseInput } from '../schemas.js';
import { contextSettingsInput } from '../schemas-notebook.js';
import type { JsonValue } from '../types-structured.js';
import { scanAndRedact } from './secret-scan.js';

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

/** A message as sent to a model. */
export interface ContextMessage {
  role: TranscriptRole;
  content: string;
}

export interface ContextInput {
  /** The notebook block (`Notebook.inject(...).text`), placed with the persistent memory. */
  notebook?: string | undefined;
  /** The recall block (`### Relevant Past Knowledge` …) for this turn. */
  recall?: string | undefined;
  /** The current turn, not yet added to the conversation. */
  turn?: string | ContextMessage | undefined;
  /** Tokens kept free for the model's answer (default 0). */
  reserveTokens?: number | undefined;
}

export interface AssembledContext {
  /** System prompt → rules → persistent memory (notebook, transcript) → this session's messages → recall → turn. */
  messages: ContextMessage[];
  /** Token count of `messages` (incremental estimate: each text counted once when it entered). */
  tokens: number;
  /** Oldest history messages left out because they did not fit in the context length. */
  omittedMessages: number;
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
  /** Writes the summary for the `summarize` strategy; default: the template summariser. */
  summarizer?: Summarizer | undefined;
  logger?: Logger | undefined;
  systemPrompt?: string | undefined;
  rules?: readonly string[] | undefined;
  options?: Partial<ConversationOptions> | undefined;
  /** An extra asynchronous secret scan after mem's own rules; what it finds is redacted too (docs/safety.md). */
  secretScanner?: SecretScanner | undefined;
}

interface Entry {
  message: TranscriptMessage;
  line: string;
  tokens: number;
  chat: ContextMessage;
}

const iso = (d: Date) => d.toISOString();

/** The context window, threshold and strategy an agent's conversation uses (settable per agent). */
export type ContextSettings = Pick<ConversationOptions, 'contextLength' | 'threshold' | 'strategy'>;

/** Stored settings, re-checked on read (a hand-edited row must not break every later call): bad fields are dropped. */
function storedSettings(state: JsonValue): Partial<ContextSettings> {
  const parsed = contextSettingsInput.safeParse(state);
  if (!parsed.success) return {};
  const out: Partial<ContextSettings> = {};
  for (const [k, v] of Object.entries(parsed.data)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function checkOptions(o: ConversationOptions): ConversationOptions {
  const bad = (what: string) => new MemError('INVALID_INPUT', `Invalid conversation option: ${what}.`);
  if (!(Number.isFinite(o.contextLength) && o.contextLength > 0))
    throw bad(`contextLength must be a positive number of tokens (got ${o.contextLength})`);
  if (!(o.threshold > 0 && o.threshold <= 1)) throw bad(`threshold must be in (0, 1] (got ${o.threshold})`);
  if (!(o.target > 0 && o.target < 1)) throw bad(`target must be in (0, 1) (got ${o.target})`);
  if (!COMPACTION_STRATEGIES.includes(o.strategy))
    throw bad(`strategy must be one of ${COMPACTION_STRATEGIES.join(', ')} (got "${String(o.strategy)}")`);
  return o;
}

/**
 * One agent's conversation memory (docs/conversations.md): a history written through to a TranscriptStore, reloaded on start,
 * assembled into model contexts within a token budget, and compacted near the context limit.
 *
 * Token counts are incremental: each message is counted once when it enters the history and a running prefix
 * sum is kept, so `tokens()`, `needsCompression()` and `context()` never re-tokenize the history, and
 * `context()` touches only the messages that fit.
 *
 * Every async method loads the stored transcript first (once). Mutations are serialised per instance.
 */
export class Conversation {
  readonly space: string;
  readonly agentId: string;
  readonly options: ConversationOptions;
  private readonly store: TranscriptStore;
  private readonly clock: Clock;
  private readonly tokenizer: Tokenizer;
  private readonly summarizer: Summarizer;
  private readonly logger: Logger;
  private readonly secretScanner: SecretScanner | undefined;
  private readonly fixed: { message: ContextMessage; tokens: number }[] = [];
  private readonly titleTokens: number;

  private header: TranscriptHeader | null = null;
  private persisted: Entry[] = [];
  private session: Entry[] = [];
  /** Running token totals of the history entries (persisted then session). */
  private readonly counts = new RunningTokens();
  private persistentCache: { from: number; message: ContextMessage } | null = null;
  private loading: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(deps: ConversationDeps) {
    this.space = checkName(deps.space, 'space');
    this.agentId = checkName(deps.agentId, 'agent');
    this.store = deps.store;
    this.clock = deps.clock ?? systemClock;
    this.tokenizer = deps.tokenizer ?? defaultTokenizer();
    this.summarizer = deps.summarizer ?? createTemplateSummarizer();
    this.logger = deps.logger ?? stderrLogger;
    this.secretScanner = deps.secretScanner;
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

  /** Construct and load the stored transcript. */
  static async open(deps: ConversationDeps): Promise<Conversation> {
    return new Conversation(deps).load();
  }

  // ---------- loading ----------

  /** Load the stored transcript (once; later calls return at once). Loading never writes. */
  async load(): Promise<this> {
    this.loading ??= this.store.read(this.space, this.agentId).then(
      (t) => this.rebuild(t),
      (error: unknown) => {
        this.loading = null; // a later call may try again (e.g. once a corrupt file was moved away)
        throw error;
      },
    );
    await this.loading;
    return this;
  }

  /** Drop this session's in-memory state and load the stored transcript again. */
  async reload(): Promise<void> {
    await this.exclusive(async () => {
      this.rebuild(await this.store.read(this.space, this.agentId));
    });
  }

  private rebuild(t: Transcript | null): void {
    this.header = t ? { ...t.header } : null;
    this.persisted = (t?.messages ?? []).map((m) => this.entry(m));
    this.session = [];
    this.counts.clear();
    for (const e of this.persisted) this.counts.push(e.tokens);
    this.persistentCache = null;
  }

  private entry(message: TranscriptMessage): Entry {
    const line = renderMessageLine(message);
    return {
      message,
      line,
      tokens: this.tokenizer.count(line) + this.options.messageOverheadTokens,
      chat: { role: message.role, content: line },
    };
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.load()).then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private clean(text: string): string {
    const noNul = text.includes('\u0000') ? text.replace(/\u0000/g, '') : text;
    const noSecrets = this.options.redactSecrets ? redactSecrets(noNul) : noNul;
    return personalDataPolicy(this.options.personalData, this.space) === 'allow'
      ? noSecrets
      : redactSecrets(noSecrets, PERSONAL_DATA_RULES);
  }

  /** `clean`, then the stack's secret scanner (when secrets are redacted) over all the texts in one call. */
  private async cleanAll(texts: readonly string[]): Promise<string[]> {
    const cleaned = texts.map((t) => this.clean(t));
    return this.options.redactSecrets ? scanAndRedact(this.secretScanner, cleaned, 'transcript') : cleaned;
  }

  // ---------- writing ----------

  /**
   * Add a message: secrets are redacted (unless disabled), then the message is written through to the store
   * before this resolves. Empty content is skipped (returns null). `at` defaults to the clock's now.
   */
  async add(
    role: TranscriptRole,
    content: string,
    options: { at?: Date | string } = {},
  ): Promise<TranscriptMessage | null> {
    const [added] = await this.addMany([{ role, content, ...(options.at === undefined ? {} : { at: options.at }) }]);
    return added ?? null;
  }

  /** Add several messages in one durable append (same rules as `add`); returns the messages kept. */
  async addMany(
    messages: readonly { role: TranscriptRole; content: string; at?: Date | string }[],
  ): Promise<TranscriptMessage[]> {
    const prepared: TranscriptMessage[] = [];
    const contents = await this.cleanAll(messages.map((m) => (typeof m.content === 'string' ? m.content : '')));
    for (const [i, m] of messages.entries()) {
      if (!TRANSCRIPT_ROLES.includes(m.role)) {
        throw new MemError(
          'INVALID_INPUT',
          `Invalid role "${String(m.role)}": use one of ${TRANSCRIPT_ROLES.join(', ')}.`,
        );
      }
      if (typeof m.content !== 'string') throw new MemError('INVALID_INPUT', 'Message content must be a string.');
      const content = contents[i]!;
      if (isEmptyContent(content)) continue;
      const when = m.at === undefined ? this.clock.now() : new Date(m.at);
      if (Number.isNaN(when.getTime())) {
        throw new MemError('INVALID_INPUT', `Invalid message time "${String(m.at)}": give a Date or an ISO-8601 time.`);
      }
      const at = iso(when);
      prepared.push({ role: m.role, content, at });
    }
    if (prepared.length === 0) return [];
    return this.exclusive(async () => {
      const now = this.clock.now();
      const init = this.header ?? { conversationId: newId(now), createdAt: iso(now) };
      const { header } = await this.store.append(this.space, this.agentId, prepared, init);
      this.header = header;
      for (const m of prepared) {
        const e = this.entry(m);
        this.session.push(e);
        this.counts.push(e.tokens);
      }
      return prepared.map((m) => ({ ...m }));
    });
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

  /** True when the history has reached threshold × contextLength and holds something to compress. O(1). */
  needsCompression(): boolean {
    return this.counts.length > 0 && shouldCompress(this.tokens(), this.options);
  }

  /** The stored messages this instance knows: the loaded transcript then this session's messages. */
  async messages(): Promise<TranscriptMessage[]> {
    await this.load();
    return [...this.persisted, ...this.session].map((e) => ({ ...e.message }));
  }

  /** The full in-memory history: system prompt → rules → persistent memory → this session's messages. */
  async history(): Promise<ContextMessage[]> {
    await this.load();
    const out = this.fixed.map((f) => ({ ...f.message }));
    if (this.persisted.length > 0) out.push(this.persistentMessage(0));
    for (const e of this.session) out.push({ ...e.chat });
    return out;
  }

  /** Every message as `[<time>] <role>: <content>`, one per line. */
  async render(): Promise<string> {
    await this.load();
    return [...this.persisted, ...this.session].map((e) => e.line).join('\n');
  }

  private persistentMessage(from: number): ContextMessage {
    if (this.persistentCache?.from !== from) {
      const lines = this.persisted.slice(from).map((e) => e.line);
      this.persistentCache = {
        from,
        message: { role: 'system', content: `${this.options.persistentMemoryTitle}\n\n${lines.join('\n')}` },
      };
    }
    return { ...this.persistentCache.message };
  }

  /**
   * Assemble the messages for the next model call, in the order system prompt → rules → persistent memory
   * (notebook block, stored transcript) → this session's messages → recall block → current turn. When the history
   * does not fit in contextLength − reserve, its oldest messages are left out (compaction should have run first).
   * Cost grows with what fits, not with the length of the history.
   */
  async context(input: ContextInput = {}): Promise<AssembledContext> {
    await this.load();
    const overhead = this.options.messageOverheadTokens;
    const before: { message: ContextMessage; tokens: number }[] = [...this.fixed];
    const after: { message: ContextMessage; tokens: number }[] = [];
    if (input.notebook && !isEmptyContent(input.notebook)) {
      before.push({
        message: { role: 'system', content: input.notebook },
        tokens: this.tokenizer.count(input.notebook) + overhead,
      });
    }
    if (input.recall && !isEmptyContent(input.recall)) {
      after.push({
        message: { role: 'system', content: input.recall },
        tokens: this.tokenizer.count(input.recall) + overhead,
      });
    }
    if (input.turn !== undefined) {
      const turn = typeof input.turn === 'string' ? { role: 'user' as const, content: input.turn } : input.turn;
      if (!isEmptyContent(turn.content))
        after.push({ message: { ...turn }, tokens: this.tokenizer.count(turn.content) + overhead });
    }
    const P = this.persisted.length;
    let outside = P > 0 ? this.titleTokens : 0;
    for (const x of before) outside += x.tokens;
    for (const x of after) outside += x.tokens;
    const budget = this.options.contextLength - (input.reserveTokens ?? 0) - outside;
    // The oldest entries that do not fit are left out: one binary search over the running totals.
    const k = this.counts.fitFrom(budget);
    const messages: ContextMessage[] = before.map((x) => x.message);
    let tokens = 0;
    for (const x of before) tokens += x.tokens;
    if (k < P) {
      messages.push(this.persistentMessage(k));
      tokens += this.titleTokens;
    }
    const fromSession = Math.max(0, k - P);
    for (let i = fromSession; i < this.session.length; i++) messages.push(this.session[i]!.chat);
    tokens += this.counts.from(k);
    for (const x of after) {
      messages.push(x.message);
      tokens += x.tokens;
    }
    return { messages, tokens, omittedMessages: k };
  }

  async archives(): Promise<ArchiveInfo[]> {
    return this.store.listArchives(this.space, this.agentId);
  }

  async readArchive(id: string): Promise<Transcript> {
    // Checked before any store sees it: an archive id is never a path.
    if (!parseArchiveId(id)) throw invalidArchiveId(id);
    return this.store.readArchive(this.space, this.agentId, id);
  }

  // ---------- compaction ----------

  /**
   * Call at the top of every agent-loop iteration, whatever the loop (fixed count, open-ended, event driven):
   * compresses with the configured strategy when tokens ≥ threshold × contextLength, else returns null at once.
   * Never throws for a failed summariser or store: it logs, keeps the transcript and reports `failed`.
   */
  async maybeCompress(): Promise<CompressionOutcome | null> {
    await this.load();
    if (!this.needsCompression()) return null;
    return this.exclusive(async () => {
      if (!this.needsCompression()) return null;
      return this.compressNow();
    });
  }

  /** Compress now with the configured strategy, whatever the token count (e.g. `mem convo compact` without a summary). */
  async compress(): Promise<CompressionOutcome> {
    return this.exclusive(() => this.compressNow());
  }

  /**
   * Compaction with a given summary (docs/conversations.md): archive the transcript, replace it by a fresh header and one
   * `[Compressed Memory Summary]` block, and rebuild the history as system prompt → rules → summary.
   */
  async compact(summary: string): Promise<CompressionOutcome & { status: 'compacted' }> {
    if (typeof summary !== 'string' || isEmptyContent(summary)) {
      throw new MemError(
        'INVALID_INPUT',
        'The summary is empty: give the text that replaces the conversation, or call compress() to have the summariser write one.',
      );
    }
    return this.exclusive(async () => {
      const tokensBefore = this.tokens();
      for (let attempt = 1; ; attempt++) {
        const snapshot = await this.store.read(this.space, this.agentId);
        if (!snapshot) {
          throw new MemError(
            'NOT_FOUND',
            `Agent "${this.agentId}" has no transcript to compact in space "${this.space}"; add messages first.`,
          );
        }
        const now = this.clock.now();
        try {
          return await this.replace(
            snapshot,
            [summaryMessage((await this.cleanAll([summary]))[0]!, iso(now))],
            'summarize',
            tokensBefore,
            {},
          );
        } catch (error) {
          if (!MemError.is(error, 'CONFLICT') || attempt >= 3) throw error;
        }
      }
    });
  }

  private async compressNow(): Promise<CompressionOutcome> {
    const strategy = this.options.strategy;
    const tokensBefore = this.tokens();
    let snapshot: Transcript | null;
    try {
      snapshot = await this.store.read(this.space, this.agentId);
    } catch (error) {
      return this.failed(strategy, tokensBefore, 'reading the transcript failed', error);
    }
    if (!snapshot || snapshot.messages.length === 0) {
      return { status: 'skipped', strategy, tokensBefore, reason: 'the stored transcript holds no messages' };
    }
    const now = this.clock.now();
    let replacement: TranscriptMessage[];
    const extra: Partial<Extract<CompressionOutcome, { status: 'compacted' }>> = {};
    if (strategy === 'summarize') {
      let summary: string;
      try {
        const result = await this.summarizer.summarize({ messages: snapshot.messages, agent: this.agentId });
        [summary] = (await this.cleanAll([result.summary ?? ''])) as [string];
        extra.summarizer = result.summarizer;
        extra.usage = result.usage;
        if (result.fallback) {
          extra.fallback = result.fallback;
          this.logger.warn(
            `summariser "${result.fallback.from}" fell back to "${result.summarizer}": ${result.fallback.reason}`,
            {
              space: this.space,
              agent: this.agentId,
            },
          );
        }
      } catch (error) {
        return this.failed(strategy, tokensBefore, `summariser "${this.summarizer.id}" failed`, error);
      }
      if (isEmptyContent(summary))
        return this.failed(
          strategy,
          tokensBefore,
          `summariser "${this.summarizer.id}" returned an empty summary`,
          null,
        );
      replacement = [summaryMessage(summary, iso(now))];
    } else {
      const counts = this.countsFor(snapshot);
      const budget = Math.max(0, this.options.target * this.options.contextLength - this.fixedWithoutTitle());
      let messages = snapshot.messages;
      let current = counts;
      if (strategy === 'drop-tool-results') {
        const dropped = dropOldToolResults(messages, counts, this.options);
        extra.replacedToolResults = dropped.replaced;
        messages = dropped.messages;
        current = messages.map((m, i) => (m === snapshot.messages[i] ? counts[i]! : this.entry(m).tokens));
      }
      replacement = slidingWindow(messages, current, budget);
      extra.droppedMessages = messages.length - replacement.length;
    }
    try {
      return await this.replace(snapshot, replacement, strategy, tokensBefore, extra);
    } catch (error) {
      if (MemError.is(error, 'CONFLICT')) {
        this.logger.info('another writer compacted this transcript first; reloaded it', {
          space: this.space,
          agent: this.agentId,
        });
        this.rebuild(await this.store.read(this.space, this.agentId));
        return { status: 'skipped', strategy, tokensBefore, reason: 'another writer compacted the transcript first' };
      }
      return this.failed(strategy, tokensBefore, 'the store could not compact the transcript', error);
    }
  }

  private fixedWithoutTitle(): number {
    let t = 0;
    for (const f of this.fixed) t += f.tokens;
    return t;
  }

  /** Token counts of a snapshot's messages, reusing the counts already held when the snapshot is what we hold. */
  private countsFor(snapshot: Transcript): number[] {
    const held = [...this.persisted, ...this.session];
    const same = this.header?.conversationId === snapshot.header.conversationId;
    return snapshot.messages.map((m, i) => {
      const e = same ? held[i] : undefined;
      return e && e.message.at === m.at && e.message.role === m.role && e.message.content === m.content
        ? e.tokens
        : this.entry(m).tokens;
    });
  }

  private failed(strategy: CompactionStrategy, tokensBefore: number, what: string, error: unknown): CompressionOutcome {
    const detail = error === null ? '' : `: ${error instanceof Error ? error.message : String(error)}`;
    this.logger.warn(`conversation compaction skipped, transcript kept: ${what}${detail}`, {
      space: this.space,
      agent: this.agentId,
      strategy,
    });
    return { status: 'failed', strategy, tokensBefore, error: `${what}${detail}` };
  }

  private async replace(
    snapshot: Transcript,
    replacement: TranscriptMessage[],
    strategy: CompactionStrategy,
    tokensBefore: number,
    extra: Partial<Extract<CompressionOutcome, { status: 'compacted' }>>,
  ): Promise<CompressionOutcome & { status: 'compacted' }> {
    const now = this.clock.now();
    const result = await this.store.compact(this.space, this.agentId, {
      basis: { conversationId: snapshot.header.conversationId, messageCount: snapshot.messages.length },
      header: { conversationId: newId(now), createdAt: iso(now) },
      messages: replacement,
      archivedAt: iso(now),
    });
    this.rebuild(result.transcript);
    await this.applyRetention();
    return {
      ...extra,
      status: 'compacted',
      strategy,
      archive: result.archive,
      tokensBefore,
      tokensAfter: this.tokens(),
      carried: result.carried,
    };
  }

  private async applyRetention(): Promise<void> {
    const { maxAgeDays, maxCount } = this.options.retention;
    if (maxAgeDays === null && maxCount === null) return;
    try {
      await pruneArchives(this.store, this.space, this.agentId, { maxAgeDays, maxCount }, this.clock.now());
    } catch (error) {
      this.logger.warn('archive retention failed; archives kept', { space: this.space, agent: this.agentId, error });
    }
  }
}

/** Delete archives beyond a retention policy (oldest first). Returns the ids removed. */
export async function pruneArchives(
  store: TranscriptStore,
  space: string,
  agentId: string,
  policy: { maxAgeDays?: number | null; maxCount?: number | null },
  now: Date,
): Promise<string[]> {
  const archives = await store.listArchives(space, agentId);
  const doomed = new Set<string>();
  if (policy.maxCount !== null && policy.maxCount !== undefined && archives.length > policy.maxCount) {
    for (const a of archives.slice(0, archives.length - Math.max(0, policy.maxCount))) doomed.add(a.id);
  }
  if (policy.maxAgeDays !== null && policy.maxAgeDays !== undefined) {
    const limit = now.getTime() - policy.maxAgeDays * 86_400_000;
    for (const a of archives) if (Date.parse(a.archivedAt) < limit) doomed.add(a.id);
  }
  const removed: string[] = [];
  for (const id of doomed) if (await store.deleteArchive(space, agentId, id)) removed.push(id);
  return removed;
}

export interface ConversationServiceDeps {
  store: TranscriptStore;
  /** Where per-agent context settings persist (the stack passes its session-state store); absent: not settable. */
  settings?: SessionStateStore | undefined;
  clock?: Clock | undefined;
  tokenizer?: Tokenizer | undefined;
  summarizer?: Summarizer | undefined;
  logger?: Logger | undefined;
  options?: Partial<ConversationOptions> | undefined;
  secretScanner?: SecretScanner | undefined;
}

/** Opens conversations over one TranscriptStore with shared defaults; what a stack exposes as `conversations`. */
export class ConversationService {
  readonly store: TranscriptStore;
  private readonly deps: ConversationServiceDeps;

  constructor(deps: ConversationServiceDeps) {
    this.store = deps.store;
    this.deps = deps;
  }

  /** The conversation of one agent; per-call options override the service's. Load happens on first use. */
  open(args: {
    space: string;
    agentId: string;
    systemPrompt?: string | undefined;
    rules?: readonly string[] | undefined;
    options?: Partial<ConversationOptions> | undefined;
    /** Writes this conversation's compaction summaries instead of the service's summariser. */
    summarizer?: Summarizer | undefined;
  }): Conversation {
    return new Conversation({
      ...this.deps,
      ...(args.summarizer ? { summarizer: args.summarizer } : {}),
      space: args.space,
      agentId: args.agentId,
      systemPrompt: args.systemPrompt,
      rules: args.rules,
      options: { ...this.deps.options, ...args.options },
    });
  }

  /**
   * The context settings of an agent: the service's, overridden by what was set for the agent (`setContextSettings`).
   * `stored` holds only the fields set for the agent.
   */
  async contextSettings(
    space: string,
    agentId: string,
  ): Promise<{ settings: ContextSettings; stored: Partial<ContextSettings> }> {
    checkName(agentId, 'agent');
    const record = this.deps.settings ? await this.deps.settings.get(space, contextSettingsSessionId(agentId)) : null;
    const stored = record ? storedSettings(record.state) : {};
    const base = { ...DEFAULT_CONVERSATION_OPTIONS, ...this.deps.options };
    const merged = { ...base, ...stored };
    return {
      settings: { contextLength: merged.contextLength, threshold: merged.threshold, strategy: merged.strategy },
      stored,
    };
  }

  /**
   * Set an agent's context window, threshold and strategy (each field given replaces the stored one), persisted in the
   * session-state store so every later `openWithSettings` uses them. `INVALID_INPUT` for bad values (nothing stored);
   * `CAPABILITY_MISSING` without a session-state store.
   */
  async setContextSettings(
    space: string,
    agentId: string,
    raw: unknown,
  ): Promise<{ settings: ContextSettings; stored: Partial<ContextSettings> }> {
    checkName(agentId, 'agent');
    const input = parseInput(contextSettingsInput, 'context settings', raw);
    if (!this.deps.settings) {
      throw new MemError(
        'CAPABILITY_MISSING',
        'Per-agent context settings are kept in the session-state store, and this stack has none: configure structured stores (SQLite, PostgreSQL or in-memory).',
      );
    }
    const { stored } = await this.contextSettings(space, agentId);
    const next: Partial<ContextSettings> = { ...stored };
    for (const [k, v] of Object.entries(input)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
    checkOptions({ ...DEFAULT_CONVERSATION_OPTIONS, ...this.deps.options, ...next });
    const at = iso((this.deps.clock ?? systemClock).now());
    await this.deps.settings.set(space, contextSettingsSessionId(agentId), next as JsonValue, at);
    return this.contextSettings(space, agentId);
  }

  /** `open` with the agent's stored context settings applied (per-call options still win). */
  async openWithSettings(args: Parameters<ConversationService['open']>[0]): Promise<Conversation> {
    const { stored } = await this.contextSettings(args.space, args.agentId);
    return this.open({ ...args, options: { ...stored, ...args.options } });
  }

  agents(space: string): Promise<string[]> {
    return this.store.agents(space);
  }

  archives(space: string, agentId: string): Promise<ArchiveInfo[]> {
    return this.store.listArchives(space, agentId);
  }

  async readArchive(space: string, agentId: string, id: string): Promise<Transcript> {
    // Checked before any store sees it: an archive id is never a path.
    if (!parseArchiveId(id)) throw invalidArchiveId(id);
    return this.store.readArchive(space, agentId, id);
  }

  /** The archive retention configured for this service (per-call options aside); nulls mean keep forever. */
  get retention(): { maxAgeDays: number | null; maxCount: number | null } {
    return { ...DEFAULT_CONVERSATION_OPTIONS.retention, ...this.deps.options?.retention };
  }

  /** Delete archives beyond a retention policy. */
  prune(
    space: string,
    agentId: string,
    policy: { maxAgeDays?: number | null; maxCount?: number | null },
  ): Promise<string[]> {
    return pruneArchives(this.store, space, agentId, policy, (this.deps.clock ?? systemClock).now());
  }

  /** Delete an agent's transcript and archives (`forget`). */
  forget(space: string, agentId: string): Promise<{ transcripts: number; archives: number }> {
    return this.store.remove(space, agentId);
  }
}
