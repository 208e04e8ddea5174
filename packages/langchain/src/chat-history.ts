/**
 * `MemChatMessageHistory`: a LangChain `BaseListChatMessageHistory` over an agent's mem transcript (docs in
 * README.md), written and compacted through the stack's conversation service as `MemSession` of
 * `@mem/openai-agents` does, and distilled into formed memories when built on a whole stack.
 */
import { BaseListChatMessageHistory } from '@langchain/core/chat_history';
import type { BaseMessage } from '@langchain/core/messages';
import { type CompressionOutcome, MemError, type TurnMessage } from '@mem/core';
import {
  type DistillationRun,
  type DistillationStatus,
  type SessionSetupOptions,
  sessionSetup,
  type TranscriptSession,
} from '@mem/core/adapter';
import { fromTranscript, toTranscript } from './messages.js';

/**
 * The options of a `MemChatMessageHistory`: `stack` (or only its `conversations`), `space`, `sessionId`, `userId`,
 * `distill`, `distillTokens` and `compaction`, as every mem session over a transcript takes them.
 */
export interface MemChatMessageHistoryOptions extends SessionSetupOptions {
  /**
   * The session id: the agent name whose transcript holds the messages (mem name rules: letters, digits, `-`, `_`,
   * `.` not first; at most 80 characters). `RunnableWithMessageHistory`'s `sessionId` is the natural value.
   */
  sessionId: string;
}

/**
 * A LangChain chat message history over a mem transcript. Every call reads the stored transcript, so several
 * histories (and processes) on one store see each other's messages. Human, AI (tool calls included), system and
 * tool messages round-trip; mem's compaction summary comes back as the first, system, message.
 */
export class MemChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ['mem', 'langchain', 'chat_history'];

  readonly space: string;
  readonly sessionId: string;
  private readonly session: TranscriptSession;
  /** The outcome of the compaction the last `addMessages` ran (null: none was due). */
  lastCompaction: CompressionOutcome | null = null;

  constructor(options: MemChatMessageHistoryOptions) {
    super();
    if (!options || typeof options !== 'object') {
      throw new MemError(
        'INVALID_INPUT',
        'new MemChatMessageHistory needs { stack, space, sessionId }: a mem stack with a transcript store, the space and the conversation id.',
      );
    }
    // LangChain builds a new history for each call (`getMessageHistory(sessionId)`): one distiller per stack and
    // batch size, shared by every history of the process, so none catches up on the whole transcript again.
    this.session = sessionSetup(options, {
      label: 'MemChatMessageHistory',
      example:
        'new MemChatMessageHistory({ stack: createStack({ stores: createSqliteStores({ path }) }), space, sessionId })',
      shareDistiller: true,
    });
    this.space = options.space;
    this.sessionId = options.sessionId;
  }

  /** The stored conversation, oldest first (after a compaction: the summary as a SystemMessage, then what followed). */
  async getMessages(): Promise<BaseMessage[]> {
    return fromTranscript(await this.session.read());
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /**
   * Write the messages in one durable append (credentials are redacted first; empty messages are skipped), then
   * compress when the history reached its budget (`lastCompaction` tells the outcome).
   */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    if (!Array.isArray(messages))
      throw new MemError(
        'INVALID_INPUT',
        'addMessages takes an array of LangChain messages (HumanMessage, AIMessage, SystemMessage, ToolMessage).',
      );
    const turn = messages.map((m, i) => toTranscript(m, i)).filter((m): m is TurnMessage => m !== null);
    this.lastCompaction = null;
    if (turn.length === 0) return;
    this.lastCompaction = await this.session.write(turn);
  }

  /**
   * Empty the conversation (its transcript and archives). With `stack`, the memories distilled from this
   * conversation alone go too, with their decision log; memories other conversations also support stay.
   */
  override async clear(): Promise<void> {
    await this.session.forget();
  }

  /**
   * Distil now what the conversation holds undistilled and wait for it (null when distillation is off): call it
   * before a short-lived process exits.
   */
  async flush(): Promise<DistillationRun | null> {
    return this.session.flush();
  }

  /** The distillation's state: pending tokens, a run in flight, the runs finished since the last call (null: off). */
  distillation(): DistillationStatus | null {
    return this.session.distillation();
  }
}
