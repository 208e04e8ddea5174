/**
 * `memoryMiddleware`: mem's runner around every model call of `generateText` / `streamText` (docs in README.md).
 * Before a call: the new prompt messages are written through, the transcript is compacted when it reached
 * threshold × window, and the prompt becomes system prompt → rules → notebook → transcript → recall block → the
 * caller's own messages (kept in the AI SDK's format, tool calls and results included). After a call: the assistant
 * message (text and tool calls) is written through — one write per step; a stream cut short keeps what was delivered.
 */
import { type ContextReport, MemError, type Principal, Runner, type RunnerOptions, type Stack } from '@mem/core';
import type { LanguageModelMiddleware } from 'ai';
import {
  type CallOptions,
  type PromptMessage,
  type ResultContent,
  renderPromptMessage,
  renderResultContent,
  type StreamPart,
  toPrompt,
} from './render.js';

export interface MemoryMiddlewareOptions extends RunnerOptions {
  stack: Stack;
  /** Whose memory: space, agent, role. One middleware per agent (and per conversation at a time). */
  principal: Principal;
  /** A runner to share (e.g. with code that calls `endTask`); default: a new one over `stack` with these options. */
  runner?: Runner | undefined;
  /** Put before the caller's own system messages. */
  systemPrompt?: string | undefined;
  rules?: readonly string[] | undefined;
  /** The task and its id for recall; a call may set them with `providerOptions: { mem: { task, taskId } }`. */
  task?: string | undefined;
  taskId?: string | undefined;
  /** Called with each call's context report (tokens, compaction, recalled memories, model calls and their usage). */
  onReport?: ((report: ContextReport) => void) | undefined;
}

export interface MemoryMiddleware extends LanguageModelMiddleware {
  /** The runner the middleware uses (`endTask`, `endSession`). */
  readonly runner: Runner;
  /** The context report of the latest call, or null before the first. */
  readonly lastReport: ContextReport | null;
}

/** How a message is recognised in the next call's prompt (assistant messages by their tool calls only). */
function fingerprint(m: { role: string; content: string }, toolCallIds: readonly string[] = []): string {
  return m.role === 'assistant' ? `assistant\u0000${toolCallIds.join(',')}` : `${m.role}\u0000${m.content}`;
}

function promptCallIds(m: PromptMessage): string[] {
  if (m.role !== 'assistant') return [];
  return (m.content as { type: string; toolCallId?: string }[])
    .filter((p) => p.type === 'tool-call')
    .map((p) => String(p.toolCallId));
}

interface Pending {
  native: string[];
}

function callTask(params: CallOptions): { task?: string; taskId?: string } {
  const mem = (params.providerOptions as Record<string, Record<string, unknown>> | undefined)?.mem;
  if (!mem) return {};
  const out: { task?: string; taskId?: string } = {};
  for (const k of ['task', 'taskId'] as const) {
    if (mem[k] === undefined) continue;
    if (typeof mem[k] !== 'string') {
      throw new MemError('INVALID_INPUT', `providerOptions.mem.${k} must be a string (got ${typeof mem[k]}).`);
    }
    out[k] = mem[k] as string;
  }
  return out;
}

/** The language model middleware; use it with `wrapLanguageModel({ model, middleware: memoryMiddleware({...}) })`. */
export function memoryMiddleware(options: MemoryMiddlewareOptions): MemoryMiddleware {
  if (!options || typeof options !== 'object' || !options.stack) {
    throw new MemError(
      'INVALID_INPUT',
      'memoryMiddleware needs { stack, principal }: the stack from createStack and who acts.',
    );
  }
  const { stack, principal, runner: given, systemPrompt, rules, task, taskId, onReport, ...runnerOptions } = options;
  const runner = given ?? new Runner(stack, runnerOptions);
  const pending = new WeakMap<object, Pending>();
  /** Fingerprints of the messages already written, as the next prompt will show them. */
  let known: string[] = [];
  let lastReport: ContextReport | null = null;

  const record = async (params: CallOptions, content: readonly ResultContent[], interrupted = false) => {
    const state = pending.get(params);
    const message = renderResultContent(content);
    if (message && interrupted) message.content += '\n[interrupted: the answer was cut short here]';
    if (message) await runner.recordTurn({ principal, messages: [message] });
    const ids = (content as unknown as { type: string; toolCallId?: string }[])
      .filter((p) => p.type === 'tool-call')
      .map((p) => String(p.toolCallId));
    known = [...(state?.native ?? []), ...(message ? [fingerprint(message, ids)] : [])];
  };

  const middleware: MemoryMiddleware = {
    specificationVersion: 'v4',
    runner,
    get lastReport() {
      return lastReport;
    },

    async transformParams({ params }) {
      const hostSystem: string[] = [];
      const native: PromptMessage[] = [];
      for (const m of params.prompt) {
        if (m.role === 'system') hostSystem.push(m.content);
        else native.push(m);
      }
      const rendered = native.map((m) => renderPromptMessage(m));
      const prints = native.map((m, i) => fingerprint(rendered[i] ?? { role: m.role, content: '' }, promptCallIds(m)));
      // Messages the transcript already has: the previous call's prompt and answer, when this prompt starts with them.
      const seen = known.length > 0 && known.every((f, i) => prints[i] === f) ? known.length : 0;
      const fresh = rendered.slice(seen).filter((m): m is NonNullable<typeof m> => m !== null);
      const inTranscript = rendered.filter((m) => m !== null).length;
      const perCall = callTask(params);
      const system = [systemPrompt, ...hostSystem].filter((s): s is string => !!s && s.trim().length > 0);
      const turn = await runner.assembleTurn({
        principal,
        ...(system.length > 0 ? { systemPrompt: system.join('\n\n') } : {}),
        ...(rules ? { rules } : {}),
        ...((perCall.task ?? task) ? { task: perCall.task ?? task } : {}),
        ...((perCall.taskId ?? taskId) ? { taskId: perCall.taskId ?? taskId } : {}),
        messages: fresh,
        omitNewest: inTranscript,
      });
      lastReport = turn.report;
      onReport?.(turn.report);
      const next: CallOptions = { ...params, prompt: [...toPrompt(turn.messages), ...native] };
      pending.set(next, { native: prints });
      known = prints;
      return next;
    },

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      await record(params, result.content);
      return result;
    },

    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const reader = stream.getReader();
      const texts = new Map<string, string>();
      const calls: ResultContent[] = [];
      let finished = false;
      const flush = async (interrupted: boolean) => {
        if (finished) return;
        finished = true;
        const text = [...texts.values()].join('');
        const content = [...(text ? [{ type: 'text', text } as ResultContent] : []), ...calls];
        await record(params, content, interrupted);
      };
      const wrapped = new ReadableStream<StreamPart>({
        async pull(controller) {
          let step: Awaited<ReturnType<typeof reader.read>>;
          try {
            step = await reader.read();
          } catch (error) {
            await flush(true).catch(() => {});
            controller.error(error);
            return;
          }
          if (step.done) {
            await flush(false);
            controller.close();
            return;
          }
          const part = step.value;
          if (part.type === 'text-delta') texts.set(part.id, (texts.get(part.id) ?? '') + part.delta);
          else if (part.type === 'tool-call' || part.type === 'tool-result') calls.push(part as ResultContent);
          controller.enqueue(part);
        },
        async cancel(reason) {
          await flush(true).catch(() => {});
          await reader.cancel(reason);
        },
      });
      return { ...rest, stream: wrapped };
    },
  };
  return middleware;
}
