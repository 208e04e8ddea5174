/**
 * How a Mastra thread lives in a mem transcript (the transcript of the agent named by the thread id): every entry is
 * one JSON line. A message is `{"role","content":<its parts>,"mastra":{id,type,createdAt,threadId,resourceId,rest}}`
 * — the shape mem's distiller reads as the words of the text parts — and the thread itself is
 * `{"type":"mastra-thread","thread":{…}}`. Saving again appends a new version; reading keeps the newest version of
 * each id, in the order the ids first appeared.
 */
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import type { StorageThreadType } from '@mastra/core/memory';
import type { TranscriptMessage, TurnMessage } from '@mem/core';

const THREAD = 'mastra-thread';

interface StoredMessage {
  role: string;
  content: unknown[];
  mastra: {
    id: string;
    role: MastraDBMessage['role'];
    type?: string | undefined;
    createdAt: string;
    threadId?: string | undefined;
    resourceId?: string | undefined;
    rest: Record<string, unknown>;
  };
}

interface StoredThread {
  type: typeof THREAD;
  thread: {
    id: string;
    title?: string | undefined;
    resourceId: string;
    createdAt: string;
    updatedAt: string;
    metadata?: Record<string, unknown> | undefined;
  };
}

function iso(value: unknown): string {
  const date = value instanceof Date ? value : new Date(value as string);
  return Number.isNaN(date.getTime()) ? new Date().toISOString() : date.toISOString();
}

/** A Mastra message as a transcript line. */
export function encodeMessage(m: MastraDBMessage): TurnMessage {
  const { parts, ...rest } = m.content ?? { format: 2, parts: [] };
  const stored: StoredMessage = {
    role: m.role,
    content: Array.isArray(parts) ? parts : [],
    mastra: {
      id: m.id,
      role: m.role,
      ...(m.type !== undefined ? { type: m.type } : {}),
      createdAt: iso(m.createdAt),
      ...(m.threadId !== undefined ? { threadId: m.threadId } : {}),
      ...(m.resourceId !== undefined ? { resourceId: m.resourceId } : {}),
      rest: JSON.parse(JSON.stringify(rest)) as Record<string, unknown>,
    },
  };
  const role = m.role === 'user' || m.role === 'assistant' ? m.role : 'system';
  return { role, content: JSON.stringify(stored) };
}

/** A thread as a transcript line. */
export function encodeThread(t: StorageThreadType): TurnMessage {
  const stored: StoredThread = {
    type: THREAD,
    thread: {
      id: t.id,
      ...(t.title !== undefined ? { title: t.title } : {}),
      resourceId: t.resourceId,
      createdAt: iso(t.createdAt),
      updatedAt: iso(t.updatedAt),
      ...(t.metadata !== undefined ? { metadata: JSON.parse(JSON.stringify(t.metadata)) } : {}),
    },
  };
  return { role: 'system', content: JSON.stringify(stored) };
}

function parse(content: string): unknown {
  if (!content.startsWith('{')) return null;
  try {
    return JSON.parse(content);
  } catch {
    return null;
  }
}

function decodeMessage(s: StoredMessage): MastraDBMessage {
  const m = s.mastra;
  return {
    id: m.id,
    role: m.role,
    createdAt: new Date(m.createdAt),
    ...(m.type !== undefined ? { type: m.type } : {}),
    ...(m.threadId !== undefined ? { threadId: m.threadId } : {}),
    ...(m.resourceId !== undefined ? { resourceId: m.resourceId } : {}),
    content: { ...(m.rest as object), format: 2, parts: s.content } as MastraDBMessage['content'],
  };
}

function decodeThread(s: StoredThread): StorageThreadType {
  const t = s.thread;
  return {
    id: t.id,
    ...(t.title !== undefined ? { title: t.title } : {}),
    resourceId: t.resourceId,
    createdAt: new Date(t.createdAt),
    updatedAt: new Date(t.updatedAt),
    ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
  };
}

/** One thread as read from its transcript: the thread (null: not a Mastra thread) and its messages. */
export interface ThreadLog {
  thread: StorageThreadType | null;
  /** Newest version of each message, in the order the ids first appeared. */
  messages: MastraDBMessage[];
  /** The stored line of each message id's newest version and of the thread (to skip unchanged saves). */
  latest: Map<string, string>;
  /** Every transcript line, with the message id it belongs to (null: the thread or a foreign line). */
  lines: { raw: TranscriptMessage; messageId: string | null }[];
}

const THREAD_KEY = '\u0000thread';

export function readLog(transcript: readonly TranscriptMessage[]): ThreadLog {
  let thread: StorageThreadType | null = null;
  const byId = new Map<string, MastraDBMessage>();
  const latest = new Map<string, string>();
  const lines: ThreadLog['lines'] = [];
  for (const raw of transcript) {
    const item = parse(raw.content) as Partial<StoredMessage & StoredThread> | null;
    if (item?.type === THREAD && item.thread) {
      thread = decodeThread(item as StoredThread);
      latest.set(THREAD_KEY, raw.content);
      lines.push({ raw, messageId: null });
    } else if (item?.mastra && typeof item.mastra.id === 'string' && Array.isArray(item.content)) {
      const message = decodeMessage(item as StoredMessage);
      byId.set(message.id, message);
      latest.set(message.id, raw.content);
      lines.push({ raw, messageId: message.id });
    } else {
      lines.push({ raw, messageId: null });
    }
  }
  // Order: the first appearance of each id (a new version does not move a message).
  const order: string[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    if (line.messageId && !seen.has(line.messageId)) {
      seen.add(line.messageId);
      order.push(line.messageId);
    }
  }
  return { thread, messages: order.map((id) => byId.get(id)!), latest, lines };
}

/** Whether this line would change nothing: the stored newest version of its id (or the thread) is the same. */
export function unchanged(log: ThreadLog, line: TurnMessage, id: string | null): boolean {
  return log.latest.get(id ?? THREAD_KEY) === line.content;
}
