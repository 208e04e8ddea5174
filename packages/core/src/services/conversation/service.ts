import { contextSettingsSessionId } from '../../domain/agent-sessions.js';
import { invalidArchiveId, parseArchiveId } from '../../domain/archive-names.js';
import { checkName } from '../../domain/names.js';
import { MemError } from '../../errors.js';
import { type Clock, systemClock } from '../../ports/clock.js';
import { type Logger, silentLogger } from '../../ports/logger.js';
import type { SecretScanner } from '../../ports/secret-scanner.js';
import type { SessionStateStore } from '../../ports/session-state-store.js';
import type { Summarizer } from '../../ports/summarizer.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import type { ArchiveInfo, Transcript, TranscriptMessage, TranscriptStore } from '../../ports/transcript-store.js';
import { parseInput } from '../../schemas.js';
import { contextSettingsInput } from '../../schemas-notebook.js';
import type { JsonValue } from '../../types-structured.js';
import { replacementChange } from './compaction.js';
import { Conversation } from './conversation.js';
import {
  type ContextSettings,
  type ConversationOptions,
  checkOptions,
  DEFAULT_CONVERSATION_OPTIONS,
  storedSettings,
} from './options.js';
import { pruneArchives } from './retention.js';

const iso = (d: Date) => d.toISOString();

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

  /** The logger the conversations write to (silent when the stack has none). */
  get logger(): Logger {
    return this.deps.logger ?? silentLogger;
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

  /**
   * Take back the newest message of an agent's transcript and return it (undefined when there is none). Transcripts
   * are append-only: the shorter transcript replaces it under the transcript's lock, and the one before stays as an
   * archive.
   */
  async popLast(space: string, agentId: string): Promise<TranscriptMessage | undefined> {
    checkName(agentId, 'agent');
    return this.store.withLock(space, agentId, async (tx) => {
      const transcript = await tx.read();
      const last = transcript?.messages.at(-1);
      if (!transcript || !last) return undefined;
      const now = (this.deps.clock ?? systemClock).now();
      await tx.compact(replacementChange(transcript, transcript.messages.slice(0, -1), now));
      return last;
    });
  }

  /** Delete an agent's transcript and archives (`forget`). */
  forget(space: string, agentId: string): Promise<{ transcripts: number; archives: number }> {
    return this.store.remove(space, agentId);
  }
}
