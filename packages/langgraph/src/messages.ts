/** Between LangChain messages and mem's text messages: what the transcript keeps of each, and mem's context back. */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { TurnMessage } from '@mem/core';
import { contentText, toolCallText, toolResultText } from '@mem/core/adapter';

export { contentText };

export const kindOf = (m: BaseMessage): string => m.getType();

/** A final answer: an AI message that calls no tool. */
export function isFinalAnswer(m: BaseMessage | undefined): boolean {
  return m !== undefined && kindOf(m) === 'ai' && ((m as AIMessage).tool_calls?.length ?? 0) === 0;
}

/**
 * One LangChain message as the transcript keeps it: a human message as `user`, an AI message's text and tool calls,
 * a tool message as its result line; null when it holds nothing (system messages are the caller's system prompt).
 */
export function toTurnMessage(m: BaseMessage): TurnMessage | null {
  const kind = kindOf(m);
  const text = contentText(m.content).trim();
  if (kind === 'ai') {
    const calls = ((m as AIMessage).tool_calls ?? []).map((c) => toolCallText(c.name, String(c.id ?? ''), c.args));
    const content = [text, ...calls].filter((s) => s.length > 0).join('\n');
    return content ? { role: 'assistant', content } : null;
  }
  if (kind === 'tool') {
    const t = m as BaseMessage & { tool_call_id?: string; status?: string };
    return {
      role: 'tool',
      content: toolResultText(m.name ?? 'tool', String(t.tool_call_id ?? ''), text, t.status === 'error'),
    };
  }
  if (kind === 'system' || !text) return null;
  const role = kind === 'generic' ? (m as BaseMessage & { role?: string }).role : undefined;
  return { role: role === 'assistant' || role === 'ai' ? 'assistant' : 'user', content: text };
}

/** mem's assembled text messages as LangChain messages (a tool line from the history is a human message). */
export function toLangChain(messages: readonly TurnMessage[]): BaseMessage[] {
  return messages.map((m) =>
    m.role === 'system'
      ? new SystemMessage(m.content)
      : m.role === 'assistant'
        ? new AIMessage(m.content)
        : new HumanMessage(m.content),
  );
}
