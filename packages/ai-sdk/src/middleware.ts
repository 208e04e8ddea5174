/**
 * `memoryMiddleware`: mem's runner around every model call of `generateText` / `streamText` (docs in README.md).
 * Before a call: the new prompt messages are written through, the transcript is compacted when it reached
 * threshold × window, and the prompt becomes system prompt → rules → notebook → transcript → recall block → the
 * caller's own messages (kept in the AI SDK's format, tool calls and results included). After a call: an answer
 * without tool calls is written at once; an answer that calls tools is written together with its tool results, in
 * one append — by `onStepEnd` when the host passes it, else with the next call's input. A stream cut short keeps
 * what was delivered.
 */
import { type ContextReport, MemError, type Principal, type Runner, type TurnMessage } from '@mem/core';
import type { LoopOptions } from '@mem/core/adapter';
import type { LanguageModelMiddleware } from 'ai';
import {
  type CallOptions,
  type PromptMessage,
  type ResultContent,
  renderPromptMessage,
  renderResultContent,
  renderStepResults,
  type StreamPart,
  toPrompt,
} from './render.js';

/** The middleware's options; a call may also set the task and its id with `providerOptions: { mem: { task, taskId } }`. */
export interface MemoryMiddlewareOptions extends LoopOptions {
  /** Whose memory: space, agent, role. One middleware per agent (and per conversation at a time). */
  principal: Principal;
}

/** What `onStepEnd` reads of the AI SDK's step result (`StepResult`). */
export interface StepEndEvent {
  readonly content: readonly { readonly type: string }[];
}

export interface MemoryMiddleware extends LanguageModelMiddleware {
  /** The runner the middleware uses (`endTask`, `endSession`). */
  readonly runner: Runner;
  /** The context report of the latest call, or null before the first. */
  readonly lastReport: ContextReport | null;
  /**
   * Give it to `generateText` / `streamText` as `onStepEnd`: a step that called tools is then written with its tool
   * results as soon as the tools ran — also the last step of a loop that stops right after a tool call.
   */
  readonly onStepEnd: (step: StepEndEvent) => Promise<void>;
  /**
   * Write a tool-calling answer still waiting for its tool results (without them), then distil what the transcript
   * holds undistilled (unless `distill: false`). Resolves when both are done: call it before a short-lived process
   * exits.
   */
  flush(): Promise<void>;
}

/**
 * How a message is recognised in the next call's prompt: assistant messages by their tool calls, tool messages by
 * their results' call ids (the SDK's rendering of an output may differ from ours), others by their text.
 */
function fingerprint(m: { role: string; content: string }, callIds: readonly string[] = []): string {
  if (m.role === 'assistant') return `assistant\u0000${callIds.join(',')}`;
  if (m.role === 'tool' && callIds.length > 0) return `tool\u0000${callIds.join(',')}`;
  return `${m.role}\u0000${m.content}`;
}

function promptCallIds(m: PromptMessage): string[] {
  if (m.role !== 'assistant' && m.role !== 'tool') return [];
  const kind = m.role === 'assistant' ? 'tool-call' : 'tool-result';
  return (m.content as { type: string; toolCallId?: string }[])
    .filter((p) => p.type === kind)
    .map((p) => String(p.toolCallId));
}

/** Ids of the calls in an answer whose tools the host runs (not the provider). */
function clientCallIds(content: readonly { type: string; [k: string]: unknown }[]): string[] {
  return content.filter((p) => p.type === 'tool-call' && !p.providerExecuted).map((p) => String(p.toolCallId));
}

interface Pending {
  native: string[];
}

/** An answer that called tools, held until its tool results are known. */
interface HeldStep {
  message: TurnMessage;
  callIds: string[];
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
  const runner = given ?? stack.runner(runnerOptions);
  const pending = new WeakMap<object, Pending>();
  /** Fingerprints of the messages written (or held), as the next prompt will show them. */
  let known: string[] = [];
  let held: HeldStep | null = null;
  let lastReport: ContextReport | null = null;
  /** Writes run one after another, in call order. */
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  };

  const record = (params: CallOptions, content: readonly ResultContent[], interrupted = false) =>
    serial(async () => {
      const state = pending.get(params);
      const message = renderResultContent(content);
      const parts = content as unknown as { type: string; [k: string]: unknown }[];
      const ids = parts.filter((p) => p.type === 'tool-call').map((p) => String(p.toolCallId));
      known = [...(state?.native ?? []), ...(message ? [fingerprint(message, ids)] : [])];
      if (!message) return;
      const waiting = clientCallIds(parts);
      if (waiting.length > 0 && !interrupted) {
        // Its tool results come next: the step is written with them, in one append.
        held = { message, callIds: waiting };
        return;
      }
      if (interrupted) message.content += '\n[interrupted: the answer was cut short here]';
      await runner.recordTurn({ principal, messages: [message] });
    });

  /** The held answer, to go first in the next write. */
  const takeHeld = (): TurnMessage[] => {
    const step = held;
    held = null;
    return step ? [step.message] : [];
  };

  const onStepEnd = (step: StepEndEvent) =>
    serial(async () => {
      if (!held || !step || !Array.isArray(step.content)) return;
      const results = renderStepResults(step.content as { type: string; [k: string]: unknown }[], held.callIds);
      if (!results) return;
      const messages = [...takeHeld(), results.message];
      await runner.recordTurn({ principal, messages });
      known = [...known, fingerprint(results.message, results.callIds)];
    });

  const flush = () =>
    serial(async () => {
      const messages = takeHeld();
      if (messages.length > 0) await runner.recordTurn({ principal, messages });
      await runner.distill(principal);
    });

  const middleware: MemoryMiddleware = {
    specificationVersion: 'v4',
    runner,
    get lastReport() {
      return lastReport;
    },
    onStepEnd,
    flush,

    async transformParams({ params }) {
      const hostSystem: string[] = [];
      const native: PromptMessage[] = [];
      for (const m of params.prompt) {
        if (m.role === 'system') hostSystem.push(m.content);
        else native.push(m);
      }
      const perCall = callTask(params);
      const rendered = native.map((m) => renderPromptMessage(m));
      const prints = native.map((m, i) => fingerprint(rendered[i] ?? { role: m.role, content: '' }, promptCallIds(m)));
      const inTranscript = rendered.filter((m) => m !== null).length;
      const system = [systemPrompt, ...hostSystem].filter((s): s is string => !!s && s.trim().length > 0);
      const turn = await serial(async () => {
        // Messages the transcript already has: the previous call's prompt and answer (and its tool results when
        // onStepEnd wrote them), when this prompt starts with them.
        const seen = known.length > 0 && known.every((f, i) => prints[i] === f) ? known.length : 0;
        const fresh = rendered.slice(seen).filter((m): m is NonNullable<typeof m> => m !== null);
        // A held answer goes first: with the tool results of this prompt, the step is one append.
        const messages = [...(held ? [held.message] : []), ...fresh];
        const assembled = await runner.assembleTurn({
          principal,
          ...(system.length > 0 ? { systemPrompt: system.join('\n\n') } : {}),
          ...(rules ? { rules } : {}),
          ...((perCall.task ?? task) ? { task: perCall.task ?? task } : {}),
          ...((perCall.taskId ?? taskId) ? { taskId: perCall.taskId ?? taskId } : {}),
          messages,
          omitNewest: inTranscript,
          // The tool definitions are sent with the prompt: they count toward the budget and the compaction threshold.
          ...(params.tools && params.tools.length > 0 ? { tools: params.tools } : {}),
        });
        held = null;
        known = prints;
        return assembled;
      });
      lastReport = turn.report;
      onReport?.(turn.report);
      const next: CallOptions = { ...params, prompt: [...toPrompt(turn.messages), ...native] };
      pending.set(next, { native: prints });
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
      const finish = async (interrupted: boolean) => {
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
            await finish(true).catch(() => {});
            controller.error(error);
            return;
          }
          if (step.done) {
            await finish(false);
            controller.close();
            return;
          }
          const part = step.value;
          if (part.type === 'text-delta') texts.set(part.id, (texts.get(part.id) ?? '') + part.delta);
          else if (part.type === 'tool-call' || part.type === 'tool-result') calls.push(part as ResultContent);
          controller.enqueue(part);
        },
        async cancel(reason) {
          await finish(true).catch(() => {});
          await reader.cancel(reason);
        },
      });
      return { ...rest, stream: wrapped };
    },
  };
  return middleware;
}
