/**
 * Between LangChain messages and mem's transcript messages (a role and its text).
 *
 * A LangChain message is written as mem's other adapters write a turn, so that the summariser, the distiller and
 * `mem convo show` read one format whichever framework ran the conversation:
 *
 *   human / generic `user`        → `user`       its text
 *   ai / generic `assistant`      → `assistant`  its text, then one `[tool call <name> #<id>] <args JSON>` line per tool call
 *   system                        → `system`     its text
 *   tool (and legacy function)    → `tool`       `[tool result <name> #<id>] <output>` (`[tool error …]` for status error)
 *
 * Reading reverses it: the tool call lines at the end of an assistant message become the AI message's `tool_calls`,
 * a tool line becomes a `ToolMessage` with its call id, name and status. mem's compaction summary (a system message
 * that starts with `[Compressed Memory Summary]`) comes back as a `SystemMessage`.
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  type ToolCall,
  ToolMessage,
} from '@langchain/core/messages';
import { MemError, type TranscriptMessage, type TurnMessage } from '@mem/core';
import { contentText, toolCallText, toolResultText } from '@mem/core/adapter';

export { contentText };

/** The tool name written when a tool message has none. */
const UNNAMED_TOOL = 'tool';
const TOOL_CALL_LINE = /^\[tool call ([^\s\]]+) #([^\]\s]*)\] (.*)$/;
const TOOL_RESULT = /^\[tool (result|error) ([^\s\]]+) #([^\]\s]*)\](?: ([\s\S]*))?$/;

const isMessage = (m: unknown): m is BaseMessage =>
  typeof m === 'object' && m !== null && typeof (m as { getType?: unknown }).getType === 'function';

/**
 * One LangChain message as the transcript keeps it, or null when it holds nothing to keep (an empty message).
 * `INVALID_INPUT` for what is not a message or has a role a transcript cannot hold (`remove`, a custom chat role).
 */
export function toTranscript(m: unknown, index = 0): TurnMessage | null {
  if (!isMessage(m)) {
    throw new MemError(
      'INVALID_INPUT',
      `message ${index} is not a LangChain message (a HumanMessage, AIMessage, SystemMessage or ToolMessage from @langchain/core/messages), got ${describe(m)}.`,
    );
  }
  const kind = m.getType();
  const text = contentText(m.content);
  switch (kind) {
    case 'human':
      return text.trim() ? { role: 'user', content: text } : null;
    case 'system':
      return text.trim() ? { role: 'system', content: text } : null;
    case 'ai': {
      const calls = ((m as AIMessage).tool_calls ?? []).map((c) =>
        toolCallText(c.name, String(c.id ?? ''), c.args ?? {}),
      );
      const content = [text, ...calls].filter((s) => s.length > 0).join('\n');
      return content.trim() ? { role: 'assistant', content } : null;
    }
    case 'tool': {
      const t = m as ToolMessage;
      return {
        role: 'tool',
        content: toolResultText(t.name || UNNAMED_TOOL, String(t.tool_call_id ?? ''), text, t.status === 'error'),
      };
    }
    case 'function':
      return { role: 'tool', content: toolResultText(m.name || UNNAMED_TOOL, '', text) };
    case 'generic': {
      const role = String((m as BaseMessage & { role?: unknown }).role ?? '');
      const mapped =
        role === 'user' || role === 'human'
          ? 'user'
          : role === 'assistant' || role === 'ai'
            ? 'assistant'
            : role === 'system'
              ? 'system'
              : null;
      if (!mapped) {
        throw new MemError(
          'INVALID_INPUT',
          `message ${index} is a ChatMessage with role "${role.slice(0, 40)}": a mem transcript holds user, assistant, system and tool messages. Use HumanMessage, AIMessage or SystemMessage (or the role user, assistant or system).`,
        );
      }
      return text.trim() ? { role: mapped, content: text } : null;
    }
    default:
      throw new MemError(
        'INVALID_INPUT',
        `message ${index} is a "${kind}" message, which a chat history cannot store: give human, ai, system or tool messages.`,
      );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))} (use new HumanMessage(text))`;
  return typeof value === 'object' ? 'a plain object' : typeof value;
}

/** An assistant message's text and the tool calls written at its end. */
function splitToolCalls(content: string): { text: string; calls: ToolCall[] } {
  const lines = content.split('\n');
  const calls: ToolCall[] = [];
  while (lines.length > 0) {
    const m = TOOL_CALL_LINE.exec(lines.at(-1)!);
    if (!m) break;
    let args: unknown;
    try {
      args = JSON.parse(m[3]!);
    } catch {
      break;
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) break;
    calls.unshift({
      type: 'tool_call',
      name: m[1]!,
      args: args as Record<string, unknown>,
      ...(m[2] ? { id: m[2] } : {}),
    });
    lines.pop();
  }
  return { text: lines.join('\n'), calls };
}

/**
 * The transcript's messages as LangChain messages, oldest first. A tool line whose call is not among the tool calls
 * of the AI messages before it (a window compaction dropped the call, or another client wrote it) comes back as a
 * `HumanMessage` holding the line, since providers refuse a tool result that follows no call.
 */
export function fromTranscript(messages: readonly TranscriptMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  const openCalls = new Set<string>();
  for (const m of messages) {
    if (m.role === 'system') out.push(new SystemMessage(m.content));
    else if (m.role === 'user') out.push(new HumanMessage(m.content));
    else if (m.role === 'assistant') {
      const { text, calls } = splitToolCalls(m.content);
      for (const c of calls) openCalls.add(c.id ?? '');
      out.push(calls.length > 0 ? new AIMessage({ content: text, tool_calls: calls }) : new AIMessage(m.content));
    } else {
      const r = TOOL_RESULT.exec(m.content);
      if (r && openCalls.has(r[3]!)) {
        out.push(
          new ToolMessage({
            content: r[4] ?? '',
            tool_call_id: r[3]!,
            name: r[2]!,
            ...(r[1] === 'error' ? { status: 'error' as const } : {}),
          }),
        );
      } else out.push(new HumanMessage(m.content));
    }
  }
  return out;
}
