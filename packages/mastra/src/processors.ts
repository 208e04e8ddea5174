/**
 * The processors a `MemMastraMemory` gives the Agent (instead of Mastra's storage- and vector-backed ones): the
 * thread's last messages from mem, the working memory instruction, mem's recall block, and the save of the turn.
 */
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import { type MemoryConfigInternal, parseMemoryRequestContext } from '@mastra/core/memory';
import type { InputProcessor, OutputProcessor } from '@mastra/core/processors';
import type { RequestContext } from '@mastra/core/request-context';

/** What the processors need from the memory (implemented by `MemMastraMemory`). */
export interface ProcessorHost {
  history(threadId: string, resourceId: string | undefined, limit: number | false): Promise<MastraDBMessage[]>;
  workingMemoryInstruction(
    threadId: string,
    resourceId: string | undefined,
    config: MemoryConfigInternal,
  ): Promise<string | null>;
  recallBlock(threadId: string, resourceId: string | undefined, query: string, topK?: number): Promise<string | null>;
  persist(messages: MastraDBMessage[]): Promise<void>;
}

/** The thread and resource of the run, or null outside a memory run. */
function runOf(requestContext: RequestContext | undefined) {
  const ctx = parseMemoryRequestContext(requestContext);
  const threadId = ctx?.thread?.id;
  return threadId ? { threadId, resourceId: ctx?.resourceId, memoryConfig: ctx?.memoryConfig } : null;
}

/** The words of a message's text parts. */
export function messageText(m: MastraDBMessage): string {
  const parts = Array.isArray(m.content?.parts) ? m.content.parts : [];
  const text = parts
    .filter(
      (p): p is { type: 'text'; text: string } =>
        p?.type === 'text' && typeof (p as { text?: unknown }).text === 'string',
    )
    .map((p) => p.text)
    .join('\n');
  return text.length > 0 ? text : typeof m.content?.content === 'string' ? m.content.content : '';
}

export function historyProcessor(host: ProcessorHost, limit: number | false): InputProcessor {
  return {
    id: 'mem-message-history',
    name: 'mem message history',
    async processInput({ messageList, requestContext }) {
      const run = runOf(requestContext);
      if (!run) return messageList;
      const fresh = new Set(messageList.get.input.db().map((m) => m.id));
      const stored = (await host.history(run.threadId, run.resourceId, false)).filter(
        (m) => m.role !== 'system' && !fresh.has(m.id),
      );
      const chosen = limit === false ? stored : limit <= 0 ? [] : stored.slice(-limit);
      for (const m of chosen) messageList.add(m, 'memory');
      return messageList;
    },
  };
}

export function workingMemoryProcessor(host: ProcessorHost, base: () => MemoryConfigInternal): InputProcessor {
  return {
    id: 'mem-working-memory',
    name: 'mem working memory',
    async processInput({ messageList, requestContext }) {
      const run = runOf(requestContext);
      if (!run) return messageList;
      const instruction = await host.workingMemoryInstruction(run.threadId, run.resourceId, {
        ...base(),
        ...(run.memoryConfig ?? {}),
      } as MemoryConfigInternal);
      if (instruction) messageList.addSystem(instruction, 'memory');
      return messageList;
    },
  };
}

export function recallProcessor(host: ProcessorHost, topK: number | undefined): InputProcessor {
  return {
    id: 'mem-recall',
    name: 'mem recall',
    async processInput({ messageList, requestContext }) {
      const run = runOf(requestContext);
      if (!run) return messageList;
      const lastUser = [...messageList.get.input.db()].reverse().find((m) => m.role === 'user');
      const query = lastUser ? messageText(lastUser).trim() : '';
      if (!query) return messageList;
      const block = await host.recallBlock(run.threadId, run.resourceId, query, topK);
      if (block) messageList.addSystem(block, 'memory');
      return messageList;
    },
  };
}

/** What is kept of a message: no system messages, no partial tool calls, no working-memory tool calls. */
export function forPersistence(messages: readonly MastraDBMessage[]): MastraDBMessage[] {
  const out: MastraDBMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const parts = (Array.isArray(m.content?.parts) ? m.content.parts : []).filter((p) => {
      if (p?.type !== 'tool-invocation') return true;
      const call = (p as { toolInvocation?: { state?: string; toolName?: string } }).toolInvocation;
      return call?.state !== 'partial-call' && call?.toolName !== 'updateWorkingMemory';
    });
    if (parts.length === 0 && !(typeof m.content?.content === 'string' && m.content.content.length > 0)) continue;
    out.push({ ...m, content: { ...m.content, parts } });
  }
  return out;
}

export function saveProcessor(host: ProcessorHost): OutputProcessor {
  return {
    id: 'mem-save-messages',
    name: 'mem save messages',
    async processOutputResult({ messageList, requestContext, result }) {
      const run = runOf(requestContext);
      if (!run || run.memoryConfig?.readOnly) return messageList;
      const input = messageList.get.input.db();
      const output = messageList.get.response.db();
      if ((result as { finishReason?: string } | undefined)?.finishReason === 'error' && output.length === 0)
        return messageList;
      const messages = forPersistence([...input, ...output]).map((m) => ({
        ...m,
        threadId: m.threadId ?? run.threadId,
        ...((m.resourceId ?? run.resourceId) ? { resourceId: m.resourceId ?? run.resourceId } : {}),
      }));
      if (messages.length > 0) await host.persist(messages);
      return messageList;
    },
  };
}
