/**
 * `MemMastraMemory`: mem as the memory of a Mastra agent, a full `MastraMemory` (docs in README.md). Threads and their
 * messages live in mem transcripts (one per thread, written through mem's Runner, which distils what the user says
 * into formed memories); working memory in the thread (thread scope) or in mem's session state (resource scope);
 * semantic recall is mem's recall block.
 */
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import {
  MastraMemory,
  type MemoryConfig,
  type MemoryConfigInternal,
  type MessageDeleteInput,
  normalizeMessageHistoryConfig,
  type StorageThreadType,
  type WorkingMemoryTemplate,
} from '@mastra/core/memory';
import type { InputProcessor, OutputProcessor } from '@mastra/core/processors';
import type {
  StorageCloneThreadInput,
  StorageCloneThreadOutput,
  StorageListMessagesInput,
  StorageListThreadsInput,
  StorageListThreadsOutput,
} from '@mastra/core/storage';
import type { ToolAction } from '@mastra/core/tools';
import { MemError, type Runner, type Stack } from '@mem/core';
import {
  type DistillationRun,
  distillMessageId,
  forgetFormedByEvidence,
  transcriptEvidenceIds,
} from '@mem/core/adapter';
import { principalOf, resourceUserId, threadAgentId } from './ids.js';
import { listMessages, pageOf } from './listing.js';
import { checkOptions, type MemMastraMemoryOptions, type MemRecallOptions } from './options.js';
import {
  historyProcessor,
  type ProcessorHost,
  recallProcessor,
  saveProcessor,
  workingMemoryProcessor,
} from './processors.js';
import { encodeMessage, encodeThread, readLog, type ThreadLog, unchanged } from './records.js';
import { DEFAULT_TEMPLATE, updateWorkingMemoryTool, workingMemoryInstruction } from './working-memory.js';

const WM_PREFIX = 'mastra-working-memory-';

export class MemMastraMemory extends MastraMemory {
  readonly stack: Stack;
  readonly space: string;
  readonly runner: Runner;
  private readonly recallOptions: MemRecallOptions | false;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: MemMastraMemoryOptions) {
    const { recall, mastraOptions } = checkOptions(options);
    super({ id: options.id ?? 'mem', name: 'MemMastraMemory', options: mastraOptions as MemoryConfig });
    this.stack = options.stack;
    this.space = options.space;
    this.recallOptions = recall;
    this.runner =
      options.runner ??
      options.stack.runner({
        ...(options.distill !== undefined ? { distill: options.distill } : {}),
        ...(options.distillTokens !== undefined ? { distillTokens: options.distillTokens } : {}),
      });
  }

  // ---- the thread's transcript -------------------------------------------------------------------------------

  private async log(threadId: string, where: string): Promise<ThreadLog> {
    const agent = threadAgentId(threadId, where);
    const transcript = await this.stack.conversations!.store.read(this.space, agent);
    return readLog(transcript?.messages ?? []);
  }

  /** Run `fn` after the writes already queued for this thread (one writer per thread in this process). */
  private serial<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.queues.get(threadId) ?? Promise.resolve()).then(fn, fn);
    const settled = next.catch(() => undefined);
    this.queues.set(threadId, settled);
    void settled.then(() => {
      if (this.queues.get(threadId) === settled) this.queues.delete(threadId);
    });
    return next;
  }

  private async write(thread: StorageThreadType, lines: { role: 'user' | 'assistant' | 'system'; content: string }[]) {
    if (lines.length === 0) return;
    const principal = principalOf(this.space, thread.id, thread.resourceId, 'saveMessages');
    await this.runner.recordTurn({ principal, messages: lines });
  }

  // ---- threads -----------------------------------------------------------------------------------------------

  async getThreadById({ threadId }: { threadId: string }): Promise<StorageThreadType | null> {
    return (await this.log(threadId, 'getThreadById')).thread;
  }

  async saveThread({ thread }: { thread: StorageThreadType; memoryConfig?: MemoryConfigInternal }) {
    if (!thread || typeof thread !== 'object')
      throw new MemError('INVALID_INPUT', 'saveThread takes { thread: { id, resourceId, … } }.');
    threadAgentId(thread.id, 'saveThread');
    resourceUserId(thread.resourceId, 'saveThread');
    return this.serial(thread.id, async () => {
      const log = await this.log(thread.id, 'saveThread');
      const saved: StorageThreadType = {
        ...thread,
        createdAt: log.thread?.createdAt ?? thread.createdAt ?? new Date(),
        updatedAt: thread.updatedAt ?? new Date(),
      };
      const line = encodeThread(saved);
      if (!unchanged(log, line, null)) await this.write(saved, [line as { role: 'system'; content: string }]);
      return saved;
    });
  }

  async updateThread(args: {
    id: string;
    title?: string;
    metadata?: Record<string, unknown>;
    memoryConfig?: MemoryConfigInternal;
  }): Promise<StorageThreadType> {
    const existing = await this.getThreadById({ threadId: args?.id });
    if (!existing) throw new MemError('NOT_FOUND', `updateThread: no thread "${args.id}" in space "${this.space}".`);
    return this.saveThread({
      thread: {
        ...existing,
        ...(args.title !== undefined ? { title: args.title } : {}),
        metadata: { ...(existing.metadata ?? {}), ...(args.metadata ?? {}) },
        updatedAt: new Date(),
      },
    });
  }

  override async updateThreadResourceId(args: { threadId: string; resourceId: string }): Promise<StorageThreadType> {
    resourceUserId(args?.resourceId, 'updateThreadResourceId');
    const log = await this.log(args?.threadId, 'updateThreadResourceId');
    if (!log.thread) throw new MemError('NOT_FOUND', `updateThreadResourceId: no thread "${args.threadId}".`);
    const thread = await this.saveThread({
      thread: { ...log.thread, resourceId: args.resourceId, updatedAt: new Date() },
    });
    await this.saveMessages({ messages: log.messages.map((m) => ({ ...m, resourceId: args.resourceId })) });
    return thread;
  }

  async listThreads(args: StorageListThreadsInput = {}): Promise<StorageListThreadsOutput> {
    const { page, perPage } = pageOf(args.page, args.perPage ?? 100, 'listThreads');
    const resourceId = args.filter?.resourceId;
    if (resourceId !== undefined) resourceUserId(resourceId, 'listThreads');
    const metadata = args.filter?.metadata ?? {};
    const threads: StorageThreadType[] = [];
    for (const agent of await this.stack.conversations!.agents(this.space)) {
      const transcript = await this.stack.conversations!.store.read(this.space, agent);
      const thread = readLog(transcript?.messages ?? []).thread;
      if (!thread || (resourceId !== undefined && thread.resourceId !== resourceId)) continue;
      const meta = thread.metadata ?? {};
      if (Object.entries(metadata).every(([k, v]) => JSON.stringify(meta[k]) === JSON.stringify(v)))
        threads.push(thread);
    }
    const field = args.orderBy?.field ?? 'createdAt';
    const sign = (args.orderBy?.direction ?? 'DESC') === 'ASC' ? 1 : -1;
    threads.sort((a, b) => sign * (a[field].getTime() - b[field].getTime()));
    const start = perPage === false ? 0 : page * perPage;
    const chosen = perPage === false ? threads : threads.slice(start, start + perPage);
    return { threads: chosen, total: threads.length, page, perPage, hasMore: start + chosen.length < threads.length };
  }

  /**
   * Delete the thread: its transcript, its archives, and the memories mem distilled from it alone (memories other
   * threads also support stay).
   */
  async deleteThread(threadId: string): Promise<void> {
    const agent = threadAgentId(threadId, 'deleteThread');
    await this.serial(threadId, async () => {
      const evidence = await transcriptEvidenceIds(this.stack, this.space, agent);
      await this.stack.conversations!.forget(this.space, agent);
      this.runner.release(this.space, agent);
      await forgetFormedByEvidence(this.stack, this.space, evidence);
    });
  }

  override async createThread(args: Parameters<MastraMemory['createThread']>[0]): Promise<StorageThreadType> {
    if (args?.threadId !== undefined) threadAgentId(args.threadId, 'createThread');
    resourceUserId(args?.resourceId, 'createThread');
    return super.createThread(args);
  }

  async cloneThread(args: StorageCloneThreadInput): Promise<StorageCloneThreadOutput> {
    const source = await this.log(args?.sourceThreadId, 'cloneThread');
    if (!source.thread) throw new MemError('NOT_FOUND', `cloneThread: no thread "${args.sourceThreadId}".`);
    const id = args.newThreadId ?? this.generateId({ idType: 'thread', source: 'memory' } as never);
    if ((await this.log(id, 'cloneThread')).thread)
      throw new MemError('CONFLICT', `cloneThread: a thread "${id}" already exists; pick another newThreadId.`);
    const f = args.options?.messageFilter;
    let picked = source.messages.filter(
      (m) =>
        (!f?.startDate || m.createdAt >= f.startDate) &&
        (!f?.endDate || m.createdAt <= f.endDate) &&
        (!f?.messageIds || f.messageIds.includes(m.id)),
    );
    const limit = args.options?.messageLimit;
    if (limit !== undefined) picked = limit > 0 ? picked.slice(-limit) : [];
    const resourceId = args.resourceId ?? source.thread.resourceId;
    const now = new Date();
    const thread = await this.saveThread({
      thread: {
        id,
        resourceId,
        title: args.title ?? source.thread.title ?? '',
        createdAt: now,
        updatedAt: now,
        metadata: {
          ...(args.metadata ?? {}),
          clone: { sourceThreadId: source.thread.id, clonedAt: now, lastMessageId: picked.at(-1)?.id },
        },
      },
    });
    const messageIdMap: Record<string, string> = {};
    const clonedMessages = picked.map((m) => {
      const newId = this.generateId({ idType: 'message', source: 'memory', threadId: id } as never);
      messageIdMap[m.id] = newId;
      return { ...m, id: newId, threadId: id, resourceId };
    });
    await this.saveMessages({ messages: clonedMessages });
    return { thread, clonedMessages, messageIdMap };
  }

  // ---- messages ----------------------------------------------------------------------------------------------

  async saveMessages(args: { messages: MastraDBMessage[]; memoryConfig?: MemoryConfig | undefined }) {
    const messages = args?.messages;
    if (!Array.isArray(messages))
      throw new MemError('INVALID_INPUT', 'saveMessages takes { messages: MastraDBMessage[] }.');
    const byThread = new Map<string, MastraDBMessage[]>();
    for (const [i, m] of messages.entries()) {
      if (!m || typeof m !== 'object' || typeof m.id !== 'string' || m.id.length === 0)
        throw new MemError('INVALID_INPUT', `saveMessages: message ${i} has no id.`);
      if (m.role === 'system') continue;
      threadAgentId(m.threadId, `saveMessages (message ${i})`);
      if (m.resourceId !== undefined) resourceUserId(m.resourceId, `saveMessages (message ${i})`);
      byThread.set(m.threadId!, [...(byThread.get(m.threadId!) ?? []), m]);
    }
    for (const [threadId, list] of byThread) {
      await this.serial(threadId, async () => {
        const log = await this.log(threadId, 'saveMessages');
        const resourceId = log.thread?.resourceId ?? list.find((m) => m.resourceId)?.resourceId ?? threadId;
        const now = new Date();
        const thread = log.thread ?? {
          id: threadId,
          resourceId,
          title: '',
          metadata: {},
          createdAt: now,
          updatedAt: now,
        };
        const lines: { role: 'user' | 'assistant' | 'system'; content: string }[] = log.thread
          ? []
          : [encodeThread(thread) as { role: 'system'; content: string }];
        for (const m of list) {
          const line = encodeMessage(m) as { role: 'user' | 'assistant' | 'system'; content: string };
          if (!unchanged(log, line, m.id)) lines.push(line);
        }
        await this.write(thread, lines);
      });
    }
    return { messages };
  }

  /** The thread's messages (Mastra's listMessages). `vectorSearchString` is not used: mem recalls formed memories. */
  async recall(args: StorageListMessagesInput & { threadConfig?: MemoryConfigInternal; vectorSearchString?: string }) {
    const ids = Array.isArray(args?.threadId) ? args.threadId : [args?.threadId];
    const all: MastraDBMessage[] = [];
    for (const id of ids) all.push(...(await this.log(id as string, 'recall')).messages);
    if (args.resourceId !== undefined) resourceUserId(args.resourceId, 'recall');
    return listMessages(all, args);
  }

  /** Delete messages for real: the transcript is rewritten without them, and what mem distilled from them alone goes. */
  async deleteMessages(input: MessageDeleteInput): Promise<void> {
    if (!Array.isArray(input))
      throw new MemError('INVALID_INPUT', 'deleteMessages takes message ids or { id } objects.');
    const ids = new Set(input.map((x) => (typeof x === 'string' ? x : x?.id)));
    if ([...ids].some((id) => typeof id !== 'string' || id.length === 0))
      throw new MemError('INVALID_INPUT', 'deleteMessages: every id must be a non-empty string.');
    if (ids.size === 0) return;
    for (const agent of await this.stack.conversations!.agents(this.space)) {
      await this.serial(agent, async () => {
        const transcript = await this.stack.conversations!.store.read(this.space, agent);
        const log = readLog(transcript?.messages ?? []);
        if (!log.thread || !log.lines.some((l) => l.messageId && ids.has(l.messageId))) return;
        const gone = log.lines.filter((l) => l.messageId && ids.has(l.messageId));
        const kept = log.lines.filter((l) => !(l.messageId && ids.has(l.messageId)));
        await this.stack.conversations!.forget(this.space, agent);
        this.runner.release(this.space, agent);
        await this.write(
          log.thread,
          kept.map((l) => ({ role: l.raw.role as 'user' | 'assistant' | 'system', content: l.raw.content })),
        );
        await forgetFormedByEvidence(this.stack, this.space, new Set(gone.map((l) => distillMessageId(agent, l.raw))));
      });
    }
  }

  // ---- working memory ----------------------------------------------------------------------------------------

  private wmConfig(memoryConfig?: MemoryConfigInternal) {
    const config = this.getMergedThreadConfig(memoryConfig ?? {});
    const wm = typeof config.workingMemory === 'object' ? config.workingMemory : undefined;
    if ((wm as { schema?: unknown } | undefined)?.schema !== undefined)
      throw new MemError(
        'INVALID_INPUT',
        'MemMastraMemory: workingMemory.schema is not supported; use a Markdown `template`.',
      );
    return {
      enabled: !!wm && wm.enabled !== false,
      scope: (wm?.scope ?? 'resource') as 'resource' | 'thread',
      template: (wm as { template?: string } | undefined)?.template ?? DEFAULT_TEMPLATE,
      readOnly: config.readOnly === true,
    };
  }

  private sessionState(where: string) {
    const store = this.stack.structured.sessionState;
    if (!store)
      throw new MemError(
        'CAPABILITY_MISSING',
        `${where}: resource-scoped working memory lives in mem's session state; give createStack structured stores (createSqliteStores) or use workingMemory.scope "thread".`,
      );
    return store;
  }

  async getWorkingMemory(args: { threadId: string; resourceId?: string; memoryConfig?: MemoryConfigInternal }) {
    const wm = this.wmConfig(args?.memoryConfig);
    if (!wm.enabled) return null;
    if (wm.scope === 'thread') {
      const data = (await this.getThreadById({ threadId: args.threadId }))?.metadata?.workingMemory;
      return typeof data === 'string' ? data : null;
    }
    const user = resourceUserId(args?.resourceId, 'getWorkingMemory');
    const row = await this.sessionState('getWorkingMemory').get(this.space, WM_PREFIX + user);
    const data = (row?.state as { workingMemory?: unknown } | null)?.workingMemory;
    return typeof data === 'string' ? data : null;
  }

  async getWorkingMemoryTemplate(
    args: { memoryConfig?: MemoryConfigInternal } = {},
  ): Promise<WorkingMemoryTemplate | null> {
    const wm = this.wmConfig(args.memoryConfig);
    return wm.enabled ? { format: 'markdown', content: wm.template } : null;
  }

  async updateWorkingMemory(args: {
    threadId: string;
    resourceId?: string;
    workingMemory: string;
    memoryConfig?: MemoryConfigInternal;
  }): Promise<void> {
    if (typeof args?.workingMemory !== 'string')
      throw new MemError('INVALID_INPUT', 'updateWorkingMemory: workingMemory must be a string (the Markdown block).');
    const wm = this.wmConfig(args.memoryConfig);
    if (wm.scope === 'thread') {
      const thread = await this.getThreadById({ threadId: args.threadId });
      if (!thread) throw new MemError('NOT_FOUND', `updateWorkingMemory: no thread "${args.threadId}".`);
      await this.saveThread({
        thread: {
          ...thread,
          metadata: { ...(thread.metadata ?? {}), workingMemory: args.workingMemory },
          updatedAt: new Date(),
        },
      });
      return;
    }
    const user = resourceUserId(args.resourceId, 'updateWorkingMemory');
    const at = this.stack.clock.now().toISOString();
    await this.sessionState('updateWorkingMemory').set(
      this.space,
      WM_PREFIX + user,
      { workingMemory: args.workingMemory },
      at,
    );
  }

  async __experimental_updateWorkingMemoryVNext(args: {
    threadId: string;
    resourceId?: string;
    workingMemory: string;
    searchString?: string;
    memoryConfig?: MemoryConfigInternal;
  }): Promise<{ success: boolean; reason: string }> {
    const existing = (await this.getWorkingMemory(args)) ?? '';
    if (existing.includes(args.workingMemory)) return { success: false, reason: 'the working memory already holds it' };
    const next =
      args.searchString && existing.includes(args.searchString)
        ? existing.replace(args.searchString, args.workingMemory)
        : existing
          ? `${existing}\n${args.workingMemory}`
          : args.workingMemory;
    await this.updateWorkingMemory({ ...args, workingMemory: next });
    return {
      success: true,
      reason: args.searchString && existing.includes(args.searchString) ? 'replaced' : 'appended',
    };
  }

  override listTools(config?: MemoryConfig): Record<string, ToolAction<any, any, any, any, any>> {
    const wm = this.wmConfig(config as MemoryConfigInternal | undefined);
    return wm.enabled && !wm.readOnly
      ? { updateWorkingMemory: updateWorkingMemoryTool(this) as unknown as ToolAction<any, any, any, any, any> }
      : {};
  }

  // ---- the agent's processors --------------------------------------------------------------------------------

  private host(): ProcessorHost {
    return {
      history: async (threadId) => (await this.log(threadId, 'history')).messages,
      workingMemoryInstruction: async (threadId, resourceId, config) => {
        const wm = this.wmConfig(config);
        if (!wm.enabled) return null;
        const data = await this.getWorkingMemory({
          threadId,
          ...(resourceId ? { resourceId } : {}),
          memoryConfig: config,
        });
        return workingMemoryInstruction(wm.template, data, wm.readOnly);
      },
      recallBlock: async (threadId, resourceId, query, topK) => {
        const o = this.recallOptions || {};
        const principal = principalOf(this.space, threadId, resourceId, 'recall');
        const limit = topK ?? o.topK;
        const result = await this.stack.knowledge.recall(principal, query, {
          ...(limit !== undefined ? { limit } : {}),
          ...(o.threshold !== undefined ? { threshold: o.threshold } : {}),
          readHint: null,
        });
        return result.block;
      },
      persist: async (messages) => {
        await this.saveMessages({ messages });
      },
    };
  }

  private effective(context?: { get(key: string): unknown }) {
    const runtime = (context?.get('MastraMemory') as { memoryConfig?: MemoryConfigInternal } | undefined)?.memoryConfig;
    const config = runtime ? this.getMergedThreadConfig(runtime) : this.threadConfig;
    const recall = runtime?.semanticRecall !== undefined ? runtime.semanticRecall : this.recallOptions;
    return { config, recall };
  }

  override async getInputProcessors(_configured?: unknown[], context?: { get(key: string): unknown }) {
    const { config, recall } = this.effective(context);
    const processors: InputProcessor[] = [];
    if (this.wmConfig(config).enabled) processors.push(workingMemoryProcessor(this.host(), () => this.threadConfig));
    const history = normalizeMessageHistoryConfig(config.lastMessages, config.messageHistory);
    if (history.enabled) processors.push(historyProcessor(this.host(), history.maxMessages ?? false));
    if (recall) {
      const topK = typeof recall === 'object' ? (recall as { topK?: number }).topK : undefined;
      processors.push(recallProcessor(this.host(), topK));
    }
    return processors;
  }

  override async getOutputProcessors(): Promise<OutputProcessor[]> {
    return [saveProcessor(this.host())];
  }

  /** Wait for the background distillations this memory's runner started (before closing the stack). */
  override async settled(): Promise<void> {
    await Promise.all([...this.queues.values()]);
    await this.runner.settle();
  }

  /**
   * Distil now what a thread holds undistilled for its resource and wait for it: call it before a short-lived
   * process exits. Null when distillation is off.
   */
  async flush(args: { threadId: string; resourceId: string }): Promise<DistillationRun | null> {
    await this.settled();
    return this.runner.distill(principalOf(this.space, args?.threadId, args?.resourceId, 'flush'));
  }
}
