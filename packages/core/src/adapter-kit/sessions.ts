/**
 * The shared part of a framework session over a mem transcript (the adapter kit, exported from `@mem/core/adapter`):
 * the option checks, the principal, the background distiller, and the write / compact / forget / flush steps that an
 * Agents SDK `MemSession` and a LangChain `MemChatMessageHistory` both need. Each adapter keeps only its format.
 */
import { checkName } from '../domain/names.js';
import { MemError } from '../errors.js';
import type { TranscriptMessage, TurnMessage } from '../ports/transcript-store.js';
import type { Conversation } from '../services/conversation/conversation.js';
import type { CompressionOutcome, ConversationOptions } from '../services/conversation/options.js';
import type { ConversationService } from '../services/conversation/service.js';
import { forgetFormedByEvidence, transcriptEvidenceIds } from '../services/forget-evidence.js';
import { BackgroundDistiller, DEFAULT_DISTILL_TOKENS } from '../services/runner/distiller.js';
import type { DistillationRun, DistillationStatus } from '../services/runner/types.js';
import type { Stack } from '../stack.js';
import type { Principal } from '../types.js';

/** What a framework session over a mem transcript takes (an adapter's options extend it). */
export interface SessionSetupOptions {
  /**
   * The mem stack (with a transcript store): its conversation service holds the messages, and what the user says is
   * distilled into formed memories (docs/formation.md). Give this or `conversations`.
   */
  stack?: Stack | undefined;
  /** The conversation service of a mem stack, for a session that only stores messages (no distillation). */
  conversations?: ConversationService | undefined;
  /** The space (tenant) of the transcript. */
  space: string;
  /** The session id: the agent name whose transcript holds the messages (mem name rules). */
  sessionId: string;
  /** The end user the conversation is with: memories distilled from it are about them and follow them. */
  userId?: string | undefined;
  /** Distil the conversation as it goes (default true with `stack`): in the background, before a compaction, on `flush()`. */
  distill?: boolean | undefined;
  /** Tokens of new messages that start a background distillation (default 2,000). */
  distillTokens?: number | undefined;
  /**
   * Compaction (docs/conversations.md): context window, threshold, strategy… When the stored history reaches
   * threshold × contextLength after a write, it is compressed; the summary stays as the first message.
   */
  compaction?: Partial<ConversationOptions> | undefined;
}

/** How `sessionSetup` names the adapter in its errors, and whether its distiller is shared. */
export interface SessionSetupNames {
  /** The class name errors start with (`MemSession`, `MemChatMessageHistory`). */
  label: string;
  /** The constructor call shown when no transcript store is given: `new X({ stack: createStack(…), … })`. */
  example: string;
  /** One distiller per stack and batch size for the whole process (a framework that builds a session per call). */
  shareDistiller?: boolean | undefined;
}

/** One background distiller per stack and batch size, for the adapters that ask for a shared one. */
const distillers = new WeakMap<Stack, Map<number, BackgroundDistiller>>();

function sharedDistiller(stack: Stack, tokens: number, conversations: ConversationService): BackgroundDistiller {
  let byTokens = distillers.get(stack);
  if (!byTokens) {
    byTokens = new Map();
    distillers.set(stack, byTokens);
  }
  let distiller = byTokens.get(tokens);
  if (!distiller) {
    distiller = new BackgroundDistiller(stack, tokens, conversations.logger);
    byTokens.set(tokens, distiller);
  }
  return distiller;
}

/** A checked session over one transcript: what `sessionSetup` returns. */
export class TranscriptSession {
  constructor(
    readonly conversations: ConversationService,
    readonly stack: Stack | undefined,
    readonly space: string,
    readonly sessionId: string,
    readonly compaction: Partial<ConversationOptions> | undefined,
    readonly principal: Principal,
    readonly distiller: BackgroundDistiller | null,
  ) {}

  /** The conversation of the session, with its compaction options. */
  open(): Conversation {
    return this.conversations.open({ space: this.space, agentId: this.sessionId, options: this.compaction });
  }

  /** The stored messages, oldest first. */
  async read(): Promise<TranscriptMessage[]> {
    return (await this.conversations.store.read(this.space, this.sessionId))?.messages ?? [];
  }

  /** Write messages (through the distiller when on), then compress when due: the compaction's outcome, or null. */
  async write(messages: readonly TurnMessage[]): Promise<CompressionOutcome | null> {
    const conversation = this.open();
    if (!this.distiller) {
      await conversation.addMany(messages);
      return conversation.maybeCompress();
    }
    // What a compaction archives is distilled first; a failed distillation postpones the compaction.
    await this.distiller.write(this.principal, conversation, messages);
    return this.distiller.compactIfDue(this.principal, conversation);
  }

  /** Empty the transcript and its archives; with a stack, the memories distilled from it alone go too. */
  async forget(): Promise<void> {
    const evidence = this.stack ? await transcriptEvidenceIds(this.stack, this.space, this.sessionId) : null;
    await this.conversations.forget(this.space, this.sessionId);
    if (this.stack && evidence) await forgetFormedByEvidence(this.stack, this.space, evidence);
  }

  /** Distil now what is undistilled and wait for it (null when distillation is off). */
  async flush(): Promise<DistillationRun | null> {
    return this.distiller ? this.distiller.drain(this.principal, 'flush') : null;
  }

  /** The distillation's state (null: off). */
  distillation(): DistillationStatus | null {
    return this.distiller?.take(this.principal) ?? null;
  }
}

/**
 * Check a framework session's options (`CAPABILITY_MISSING` without a transcript store, `INVALID_INPUT` for a bad
 * name, distill flag or batch size; errors start with `names.label`) and build its `TranscriptSession`. The
 * compaction options are checked now too, not at the first compaction.
 */
export function sessionSetup(options: SessionSetupOptions, names: SessionSetupNames): TranscriptSession {
  const { label } = names;
  const conversations = options?.stack?.conversations ?? options?.conversations;
  if (!conversations) {
    throw new MemError(
      'CAPABILITY_MISSING',
      `${label} needs a stack with a transcript store: ${names.example} (or its \`conversations\`).`,
    );
  }
  checkName(options.space, 'space');
  checkName(options.sessionId, 'agent');
  if (options.userId !== undefined) checkName(options.userId, 'user');
  const distill = options.distill ?? options.stack !== undefined;
  if (typeof distill !== 'boolean')
    throw new MemError('INVALID_INPUT', `${label}: distill must be true or false (got ${JSON.stringify(distill)}).`);
  if (distill && !options.stack)
    throw new MemError(
      'INVALID_INPUT',
      `${label}: distill needs \`stack\` (the whole stack, not only its conversations).`,
    );
  const tokens = options.distillTokens ?? DEFAULT_DISTILL_TOKENS;
  if (!(Number.isInteger(tokens) && tokens >= 1 && tokens <= 1_000_000))
    throw new MemError(
      'INVALID_INPUT',
      `${label}: distillTokens must be a whole number from 1 to 1000000 (got ${JSON.stringify(tokens)}).`,
    );
  const principal: Principal = {
    space: options.space,
    agentId: options.sessionId,
    role: 'worker',
    ...(options.userId !== undefined ? { userId: options.userId } : {}),
  };
  let distiller: BackgroundDistiller | null = null;
  if (distill && options.stack)
    distiller = names.shareDistiller
      ? sharedDistiller(options.stack, tokens, conversations)
      : new BackgroundDistiller(options.stack, tokens, conversations.logger);
  const session = new TranscriptSession(
    conversations,
    options.stack,
    options.space,
    options.sessionId,
    options.compaction,
    principal,
    distiller,
  );
  session.open();
  return session;
}
