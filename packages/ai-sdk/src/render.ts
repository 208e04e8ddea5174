/** Between the AI SDK's prompt messages and mem's text messages: rendering for the transcript, and back. */
import type { TurnMessage } from '@mem/core';
import { toolCallText as callLine, compactJson as json, toolResultText } from '@mem/core/adapter';
import type { LanguageModelMiddleware } from 'ai';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
export type CallOptions = Parameters<TransformParams>[0]['params'];
export type Prompt = CallOptions['prompt'];
export type PromptMessage = Prompt[number];
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
export type ResultContent = GenerateResult['content'][number];
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;
export type StreamResult = Awaited<ReturnType<WrapStream>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** A tool result's output as text. */
export function outputText(output: unknown): string {
  const o = output as { type?: string; value?: unknown; reason?: string } | undefined;
  switch (o?.type) {
    case 'text':
    case 'error-text':
      return String(o.value);
    case 'json':
    case 'error-json':
      return json(o.value);
    case 'execution-denied':
      return `execution denied${o.reason ? `: ${o.reason}` : ''}`;
    case 'content':
      return (o.value as { type: string; text?: string }[])
        .map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`))
        .join('\n');
    default:
      return json(output);
  }
}

const resultLine = (name: string, id: string, output: unknown, error = false) =>
  toolResultText(name, id, outputText(output), error);

/** One prompt message as transcript messages (a tool message may hold several results: one line each). */
export function renderPromptMessage(m: PromptMessage): TurnMessage | null {
  if (m.role === 'system') return { role: 'system', content: m.content };
  const lines: string[] = [];
  for (const part of m.content as unknown as { type: string; [k: string]: unknown }[]) {
    if (part.type === 'text') lines.push(String(part.text));
    else if (part.type === 'tool-call')
      lines.push(callLine(String(part.toolName), String(part.toolCallId), part.input));
    else if (part.type === 'tool-result') {
      const kind = String((part.output as { type?: unknown } | undefined)?.type ?? '');
      lines.push(resultLine(String(part.toolName), String(part.toolCallId), part.output, kind.startsWith('error')));
    } else if (part.type === 'file') lines.push(`[file ${String(part.mediaType ?? '')}]`);
    else if (part.type === 'tool-approval-response')
      lines.push(`[tool approval ${part.approved ? 'granted' : 'denied'}]`);
  }
  const content = lines.join('\n').trim();
  return content ? { role: m.role, content } : null;
}

/** The assistant message a model call produced (text and tool calls; provider-executed tool results too). */
export function renderResultContent(content: readonly ResultContent[]): TurnMessage | null {
  const lines: string[] = [];
  for (const part of content as unknown as { type: string; [k: string]: unknown }[]) {
    if (part.type === 'text') lines.push(String(part.text));
    else if (part.type === 'tool-call')
      lines.push(callLine(String(part.toolName), String(part.toolCallId), part.input));
    else if (part.type === 'tool-result')
      lines.push(
        resultLine(
          String(part.toolName),
          String(part.toolCallId),
          { type: 'json', value: part.result },
          !!part.isError,
        ),
      );
  }
  const text = lines.join('\n').trim();
  return text ? { role: 'assistant', content: text } : null;
}

/**
 * The tool results of a finished step (the AI SDK's `StepResult.content`) for the given calls, as one tool message;
 * null when the step holds none of them.
 */
export function renderStepResults(
  content: readonly { type: string; [k: string]: unknown }[],
  callIds: readonly string[],
): { message: TurnMessage; callIds: string[] } | null {
  const lines: string[] = [];
  const ids: string[] = [];
  for (const part of content) {
    const id = String(part.toolCallId);
    if (part.providerExecuted || !callIds.includes(id)) continue;
    if (part.type === 'tool-result') {
      const output =
        typeof part.output === 'string' ? { type: 'text', value: part.output } : { type: 'json', value: part.output };
      lines.push(resultLine(String(part.toolName), id, output));
    } else if (part.type === 'tool-error') {
      const error = part.error instanceof Error ? part.error.message : String(part.error);
      lines.push(resultLine(String(part.toolName), id, { type: 'error-text', value: error }, true));
    } else if (part.type === 'tool-output-denied') {
      lines.push(resultLine(String(part.toolName), id, { type: 'execution-denied' }));
    } else continue;
    ids.push(id);
  }
  return lines.length > 0 ? { message: { role: 'tool', content: lines.join('\n') }, callIds: ids } : null;
}

/** mem's assembled text messages in the AI SDK's prompt format. */
export function toPrompt(messages: readonly TurnMessage[]): Prompt {
  return messages.map((m): PromptMessage => {
    if (m.role === 'system') return { role: 'system', content: m.content };
    if (m.role === 'assistant') return { role: 'assistant', content: [{ type: 'text', text: m.content }] };
    return { role: 'user', content: [{ type: 'text', text: m.content }] };
  });
}
