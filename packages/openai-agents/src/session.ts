import {
  type CompressionOutcome,
  type ConversationOptions,
  type ConversationService,
  MemError,
  type Stack,
  type TranscriptMessage,
  type TranscriptRole,
} from '@mem/core';
import { type DistillationRun, type DistillationStatus, sessionSetup, type TranscriptSession } from '@mem/core/adapter';
import type { AgentInputItem, Session } from '@openai/agents-core';

export interface MemSessionOptions {
  /**
   * The mem stack (with a transcript store): its conversations hold the items, and what the user says is distilled
   * into formed memories (docs/formation.md). Give this or `conversations`.
   */
  stack?: Stack | undefined;
  /** The conversation service of a mem stack, for a session that only stores items (no distillation). */
  conversations?: ConversationService | undefined;
  /** The end user the session is with: the memories distilled about them carry their id and follow them. */
  userId?: string | undefined;
  /** Distil the session as it goes (default true with `stack`): in the background, before a compaction, on `flush()`. */
  distill?: boolean | undefined;
  /** Tokens of new items that start a background distillation (default 2,000). */
  distillTokens?: number | undefined;
  /** The space (tenant) of the transcript. */
  space: string;
  /** The session id: the agent name whose transcript holds the items (mem name rules: letters, digits, `-`, `_`). */
  sessionId: string;
  /**
   * Compaction of the conversation (docs/conversations.md): context window, threshold, strategy… When the stored
   * history reaches threshold × contextLength after `addItems`, it is compressed; the summary stays as an item.
   */
  compaction?: Partial<ConversationOptions>;
}

/** The prefix of a summary item's text. */
const SUMMARY_MARKER = '[Compressed Memory Summary]';

/**
 * An OpenAI Agents SDK `Session` over a mem transcript: one item per transcript message, the item's JSON as the
 * message content, so items round-trip exactly (secrets aside: mem redacts them before writing). Every call reads the
 * stored transcript, so several sessions (and processes) on one store see each other's items.
 */
export class MemSession implements Session {
  private readonly session: TranscriptSession;
  private readonly conversations: ConversationService;
  private readonly space: string;
  private readonly sessionId: string;
  /** The outcome of the last compaction `addItems` ran, or null. */
  lastCompaction: CompressionOutcome | null = null;

  constructor(options: MemSessionOptions) {
    this.session = sessionSetup(options, {
      label: 'MemSession',
      example:
        'new MemSession({ stack: createStack({ knowledge, transcripts: createSqliteTranscriptStore(...) }), space, sessionId })',
    });
    this.conversations = this.session.conversations;
    this.space = options.space;
    this.sessionId = options.sessionId;
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      throw new MemError('INVALID_INPUT', `getItems: limit must be a whole number ≥ 0, got ${JSON.stringify(limit)}.`);
    }
    const messages = await this.session.read();
    const chosen = limit === undefined ? messages : limit === 0 ? [] : messages.slice(-limit);
    return chosen.map(toItem);
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items))
      throw new MemError('INVALID_INPUT', 'addItems takes an array of Agents SDK items (AgentInputItem[]).');
    const messages = items.map((item, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw new MemError(
          'INVALID_INPUT',
          `addItems: item ${i} is not an object (an AgentInputItem such as { role: 'user', content: 'hi' }).`,
        );
      const json = JSON.stringify(item);
      if (json === undefined || JSON.stringify(JSON.parse(json)) !== json)
        throw new MemError('INVALID_INPUT', `addItems: item ${i} cannot be written as JSON.`);
      return { role: roleOf(item), content: json };
    });
    if (messages.length === 0) return;
    this.lastCompaction = await this.session.write(messages);
  }

  /**
   * Distil now what the session holds undistilled and wait for it (null when distillation is off): call it when a
   * run ends in a short-lived process.
   */
  async flush(): Promise<DistillationRun | null> {
    return this.session.flush();
  }

  /** The distillation's state: pending tokens, a run in flight, the runs finished since the last call (null: off). */
  distillation(): DistillationStatus | null {
    return this.session.distillation();
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const last = await this.conversations.popLast(this.space, this.sessionId);
    return last ? toItem(last) : undefined;
  }

  /**
   * Empty the session (its transcript and archives). With `stack`, the memories distilled from this session alone go
   * too, with their decision log; memories that other conversations also support stay.
   */
  async clearSession(): Promise<void> {
    // Forgetting the session forgets what was distilled from it alone (memories other sessions also support stay).
    await this.session.forget();
  }
}

function roleOf(item: AgentInputItem): TranscriptRole {
  const role = (item as { role?: unknown }).role;
  if (role === 'user' || role === 'assistant' || role === 'system') return role;
  const type = (item as { type?: unknown }).type;
  return typeof type === 'string' && type.endsWith('_result') ? 'tool' : 'assistant';
}

/** A stored message as an item: its JSON when written by a session; a summary or a foreign message as a message item. */
function toItem(message: TranscriptMessage): AgentInputItem {
  if (message.content.startsWith('{')) {
    try {
      const parsed = JSON.parse(message.content);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as AgentInputItem;
    } catch {
      // not a session item: fall through
    }
  }
  if (message.role === 'system' && message.content.startsWith(SUMMARY_MARKER))
    return { type: 'message', role: 'system', content: message.content };
  if (message.role === 'assistant')
    return {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: message.content }],
    };
  if (message.role === 'system') return { type: 'message', role: 'system', content: message.content };
  return { type: 'message', role: 'user', content: message.content };
}
