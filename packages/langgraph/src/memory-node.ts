/**
 * `memoryNode`: mem's runner as a LangGraph node (docs in README.md). Put it before the model node and route the final
 * answer back through it: it writes the state's new messages through to the agent's mem transcript (which mem
 * compacts and distils into formed memories in the background), and puts the context mem assembled — system prompt,
 * rules, notebook, the compacted history with its summary, the recall block — into the state's `mem` channel.
 * `memoryPrompt(state)` is then what the model node sends.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, END, type LangGraphRunnableConfig, MessagesAnnotation } from '@langchain/langgraph';
import { type ContextReport, MemError, type Principal, type Runner, type TurnMessage } from '@mem/core';
import type { LoopOptions } from '@mem/core/adapter';
import { contentText, isFinalAnswer, kindOf, toLangChain, toTurnMessage } from './messages.js';

/** What the memory node keeps in the state's `mem` channel. */
export interface MemoryState {
  /** Ids of the state's messages that are in mem's transcript. */
  written: string[];
  /** The context mem assembled for the next model call (mem's text messages), sent before the new messages. */
  context: TurnMessage[];
  /** Ids of the new messages the next model call sends in their own format (tool calls and results intact). */
  native: string[];
  /** The context report of the latest assembled turn (tokens, compaction, recall, distillation), or null. */
  report: ContextReport | null;
}

/** The `mem` channel, to add to a graph's own state: `Annotation.Root({ ...MessagesAnnotation.spec, mem: memoryChannel })`. */
export const memoryChannel = Annotation<MemoryState | null>({
  reducer: (_previous, next) => next,
  default: () => null,
});

/** LangGraph's messages state with mem's `mem` channel. */
export const MemoryAnnotation = Annotation.Root({ ...MessagesAnnotation.spec, mem: memoryChannel });

/** The state the node reads: the messages and the `mem` channel. */
export interface MemoryGraphState {
  messages: BaseMessage[];
  mem?: MemoryState | null | undefined;
}

export interface MemoryNodeOptions extends LoopOptions {
  /**
   * Whose memory: `{ space, agentId, role, userId? }`, or a function of the run's config (a thread per agent, the end
   * user from `configurable`). The agent's transcript holds the conversation: one agent per conversation at a time.
   * The default recall query is the latest human message.
   */
  principal: Principal | ((config: LangGraphRunnableConfig) => Principal);
}

/** The node function, with the runner it uses and a flush for short-lived processes. */
export interface MemoryNode {
  (state: MemoryGraphState, config?: LangGraphRunnableConfig): Promise<{ mem: MemoryState }>;
  readonly runner: Runner;
  /** The context report of the latest assembled turn, or null before the first. */
  readonly lastReport: ContextReport | null;
  /**
   * Distil what the transcript holds undistilled (unless `distill: false`) and wait for it: call it before a
   * short-lived process exits. `config` picks the principal when `principal` is a function.
   */
  flush(config?: LangGraphRunnableConfig): Promise<void>;
}

function ids(messages: readonly BaseMessage[]): string[] {
  return messages.map((m, i) => {
    if (typeof m.id !== 'string' || m.id.length === 0) {
      throw new MemError(
        'INVALID_INPUT',
        `memoryNode: message ${i} of the state has no id. Use MessagesAnnotation or MemoryAnnotation (their reducer gives every message an id) or give each message an id.`,
      );
    }
    return m.id;
  });
}

/** The memory node for a `StateGraph` over `MemoryAnnotation` (or a state with `memoryChannel`). */
export function memoryNode(options: MemoryNodeOptions): MemoryNode {
  if (!options || typeof options !== 'object' || !options.stack || !options.principal) {
    throw new MemError(
      'INVALID_INPUT',
      'memoryNode needs { stack, principal }: the stack from createStack and who acts ({ space, agentId, role }, or a function of the config).',
    );
  }
  const { stack, principal, runner: given, systemPrompt, rules, task, taskId, onReport, ...runnerOptions } = options;
  const runner = given ?? stack.runner(runnerOptions);
  const principalOf = (config?: LangGraphRunnableConfig): Principal =>
    typeof principal === 'function' ? principal(config ?? {}) : principal;
  let lastReport: ContextReport | null = null;

  const node = async (state: MemoryGraphState, config?: LangGraphRunnableConfig) => {
    const messages = state?.messages;
    if (!Array.isArray(messages)) {
      throw new MemError(
        'INVALID_INPUT',
        'memoryNode: the state has no `messages` list. Build the graph on MemoryAnnotation.',
      );
    }
    const p = principalOf(config);
    const present = ids(messages);
    const done = new Set(state.mem?.written ?? []);
    const fresh = messages.filter((m, i) => kindOf(m) !== 'system' && !done.has(present[i]!));
    const rendered = fresh.map(toTurnMessage).filter((m): m is TurnMessage => m !== null);
    const nonSystem = present.filter((_, i) => kindOf(messages[i]!) !== 'system');
    const written = nonSystem;
    if (isFinalAnswer(messages.at(-1))) {
      // The answer (and whatever came before it unwritten): written, nothing to assemble.
      if (rendered.length > 0) await runner.recordTurn({ principal: p, messages: rendered });
      return { mem: { written, context: [], native: [], report: state.mem?.report ?? null } };
    }
    const hostSystem = messages
      .filter((m) => kindOf(m) === 'system')
      .map((m) => contentText(m.content))
      .filter((s) => s.trim().length > 0);
    const system = [systemPrompt, ...hostSystem].filter((s): s is string => !!s && s.trim().length > 0);
    // Recall on the latest human message even in a tool loop, where the new messages are a call and its results.
    const lastHuman = [...messages].reverse().find((m) => kindOf(m) === 'human');
    const query =
      task ?? (fresh.some((m) => kindOf(m) === 'human') ? undefined : lastHuman && contentText(lastHuman.content));
    const turn = await runner.assembleTurn({
      principal: p,
      ...(system.length > 0 ? { systemPrompt: system.join('\n\n') } : {}),
      ...(rules ? { rules } : {}),
      ...(query ? { task: query } : {}),
      ...(taskId ? { taskId } : {}),
      messages: rendered,
      omitNewest: rendered.length,
    });
    lastReport = turn.report;
    onReport?.(turn.report);
    const native = fresh.map((m) => m.id as string);
    return { mem: { written, context: turn.messages, native, report: turn.report } };
  };

  const flush = async (config?: LangGraphRunnableConfig) => {
    await runner.distill(principalOf(config));
  };
  Object.defineProperty(node, 'lastReport', { get: () => lastReport });
  return Object.assign(node, { runner, flush }) as unknown as MemoryNode;
}

/**
 * The messages for the model node: mem's context (system prompt, rules, notebook, history with its summary, recall
 * block), then the state's messages mem has not rendered into it — the new ones in their own format, tool calls and
 * results intact. Before the memory node has run, the state's messages as they are.
 */
export function memoryPrompt(state: MemoryGraphState): BaseMessage[] {
  const memory = state?.mem;
  const messages = state?.messages ?? [];
  if (!memory) return [...messages];
  const native = new Set(memory.native);
  const written = new Set(memory.written);
  const own = messages.filter(
    (m) => kindOf(m) !== 'system' && (native.has(m.id as string) || !written.has(m.id as string)),
  );
  return [...toLangChain(memory.context), ...own];
}

/**
 * Where the graph goes after the memory node: to `next` (the model node) for a turn, to the end once the final
 * answer is written. `addConditionalEdges('memory', memoryRoute('agent'))`.
 */
export function memoryRoute<N extends string>(next: N): (state: MemoryGraphState) => N | typeof END {
  return (state) => (isFinalAnswer(state?.messages?.at(-1)) ? END : next);
}
