import { createExtractiveSummarizer } from '../../adapters/extractive-summarizer.js';
import { invalidArchiveId, parseArchiveId } from '../../domain/archive-names.js';
import { type CompactionStrategy, keptTurnStart, summaryMessage } from '../../domain/compaction.js';
import { newId } from '../../domain/ids.js';
import { isEmptyContent } from '../../domain/transcript-format.js';
import { MemError } from '../../errors.js';
import { type Clock, systemClock } from '../../ports/clock.js';
import type { SecretScanner } from '../../ports/secret-scanner.js';
import type { Summarizer } from '../../ports/summarizer.js';
import {
  type ArchiveInfo,
  TRANSCRIPT_ROLES,
  type Transcript,
  type TranscriptMessage,
  type TranscriptRole,
  type TranscriptStore,
  type TurnMessage,
} from '../../ports/transcript-store.js';
import { scanAndRedact } from '../secret-scan.js';
import {
  type Compacted,
  type NoReplacement,
  type Replacement,
  replacementChange,
  summaryReplacement,
  windowReplacement,
} from './compaction.js';
import { cleanTranscriptText, extraTokens } from './context.js';
import { ConversationView } from './conversation-view.js';
import type { CompressionOutcome, ContextInput, ConversationDeps } from './options.js';
import { pruneArchives } from './retention.js';

const iso = (d: Date) => d.toISOString();
/** A summary gets at least this many tokens, however full the prompt is. */
const MIN_SUMMARY_TOKENS = 64;
/** What the summary's header line and message framing take. */
const SUMMARY_HEAD_TOKENS = 12;

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
export class Conversation extends ConversationView {
  private readonly store: TranscriptStore;
  private readonly clock: Clock;
  private readonly summarizer: Summarizer;
  private readonly secretScanner: SecretScanner | undefined;
  private loading: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(deps: ConversationDeps) {
    super(deps);
    this.store = deps.store;
    this.clock = deps.clock ?? systemClock;
    this.summarizer = deps.summarizer ?? createExtractiveSummarizer({ tokenizer: deps.tokenizer });
    this.secretScanner = deps.secretScanner;
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

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.load()).then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /** `clean`, then the stack's secret scanner (when secrets are redacted) over all the texts in one call. */
  private async cleanAll(texts: readonly string[]): Promise<string[]> {
    const cleaned = texts.map((t) => cleanTranscriptText(t, this.options, this.space));
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
  async addMany(messages: readonly (TurnMessage & { at?: Date | string })[]): Promise<TranscriptMessage[]> {
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
   * Call at the top of every agent-loop iteration, whatever the loop (fixed count, open-ended, event driven), with
   * the parts the next prompt adds (notebook, recall block, current turn, tool definitions, reserve): compresses with
   * the configured strategy when the whole prompt reaches threshold × contextLength (see needsCompression), else
   * returns null at once. Never throws for a failed summariser or store: it logs, keeps the transcript and reports
   * `failed`.
   */
  async maybeCompress(input: ContextInput = {}): Promise<CompressionOutcome | null> {
    await this.load();
    if (!this.needsCompression(input)) return null;
    return this.exclusive(async () => {
      if (!this.needsCompression(input)) return null;
      return this.compressNow(input);
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

  private async compressNow(input: ContextInput = {}): Promise<CompressionOutcome> {
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
    const counts = this.countsFor(snapshot);
    // What the next prompt holds besides the history: the summary and the kept turn share the rest of the target.
    const room =
      this.options.target * this.options.contextLength - this.fixedWithoutTitle() - extraTokens(this.parts(input));
    let planned: Replacement | NoReplacement;
    if (strategy === 'summarize') {
      // The newest turn stays verbatim after the summary while it takes at most half the target.
      const keepFrom = keptTurnStart(snapshot.messages, counts, (this.options.target * this.options.contextLength) / 2);
      let kept = 0;
      for (let i = keepFrom; i < counts.length; i++) kept += counts[i]!;
      planned = await summaryReplacement(
        {
          summarizer: this.summarizer,
          logger: this.logger,
          space: this.space,
          agentId: this.agentId,
          cleanAll: (texts) => this.cleanAll(texts),
        },
        snapshot,
        iso(this.clock.now()),
        keepFrom,
        Math.max(MIN_SUMMARY_TOKENS, Math.floor(room - kept - SUMMARY_HEAD_TOKENS)),
      );
    } else {
      planned = windowReplacement(
        strategy,
        snapshot,
        counts,
        Math.max(0, room),
        this.options,
        (m) => this.entry(m).tokens,
      );
    }
    if ('failed' in planned) return this.failed(strategy, tokensBefore, planned.failed, planned.error);
    const { messages: replacement, extra } = planned;
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
    extra: Partial<Compacted>,
  ): Promise<Compacted> {
    const now = this.clock.now();
    const result = await this.store.compact(this.space, this.agentId, replacementChange(snapshot, replacement, now));
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
