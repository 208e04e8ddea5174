import {
  type CompressionOutcome,
  type ConversationOptions,
  type ConversationService,
  checkName,
  MemError,
  type TranscriptMessage,
  type TranscriptRole,
} from '@mem/core';
import type { AgentInputItem, Session } from '@openai/agents-core';

export interface MemSessionOptions {
  /** The conversation service of a mem stack (`createStack({ …, transcripts }).conversations`). */
  conversations: ConversationService | undefined;
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
  private readonly conversations: ConversationService;
  private readonly space: string;
  private readonly sessionId: string;
  private readonly compaction: Partial<ConversationOptions> | undefined;
  /** The outcome of the last compaction `addItems` ran, or null. */
  lastCompaction: CompressionOutcome | null = null;

  constructor(options: MemSessionOptions) {
    if (!options?.conversations) {
      throw new MemError(
        'CAPABILITY_MISSING',
        'MemSession needs the conversation service of a stack with a transcript store: createStack({ knowledge, transcripts: createSqliteTranscriptStore(...) or createMarkdownStores(...).transcripts }).conversations.',
      );
    }
    checkName(options.space, 'space');
    checkName(options.sessionId, 'agent');
    this.conversations = options.conversations;
    this.space = options.space;
    this.sessionId = options.sessionId;
    this.compaction = options.compaction;
    // Option values are checked now, not at the first compaction.
    this.open();
  }

  private open() {
    return this.conversations.open({ space: this.space, agentId: this.sessionId, options: this.compaction });
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      throw new MemError('INVALID_INPUT', `getItems: limit must be a whole number ≥ 0, got ${JSON.stringify(limit)}.`);
    }
    const messages = (await this.conversations.store.read(this.space, this.sessionId))?.messages ?? [];
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
    const conversation = this.open();
    await conversation.addMany(messages);
    this.lastCompaction = await conversation.maybeCompress();
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const last = await this.conversations.popLast(this.space, this.sessionId);
    return last ? toItem(last) : undefined;
  }

  async clearSession(): Promise<void> {
    await this.conversations.forget(this.space, this.sessionId);
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
