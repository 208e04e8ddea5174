/**
 * `memoryRecallFilter`: mem's recall block (docs/ranking.md) in every model call of an Agents SDK run, as the AI SDK
 * middleware does, through the SDK's `callModelInputFilter`. The block goes at the end of the instructions: the SDK
 * writes the filter's input items to the session (an added message would be stored in the transcript and recalled
 * as conversation), while the instructions are prompt-only.
 */
import { checkName, MemError, type Principal, type Stack } from '@mem/core';
import type { Logger } from '@mem/core/adapter';
import type { AgentInputItem, CallModelInputFilter } from '@openai/agents-core';
import { agentsToolName } from './tools.js';

export interface MemoryRecallFilterOptions {
  /** The stack from createStack: its knowledge memory is recalled from. */
  stack: Stack;
  /** Who the agent is: the recall sees what this principal may read. */
  principal: Principal;
  /** Most memories in the block (default: the stack's `recallLimit`, 5). */
  limit?: number | undefined;
  /** The injection threshold on match confidence (default: the stack's, 0.6; docs/ranking.md). */
  threshold?: number | undefined;
  /**
   * The block's last line, on how to read a memory in full. Default: `call memory_get with its id` when the agent has
   * that tool, else no such line. null: none.
   */
  readHint?: string | null | undefined;
  /** Where a failed recall is reported (the run goes on without the block). Default: a `mem warn:` line on stderr. */
  logger?: Pick<Logger, 'warn'> | undefined;
}

const stderrWarn: Pick<Logger, 'warn'> = {
  warn: (message, fields) =>
    process.stderr.write(`mem warn: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
};

/** The text of the newest user message in the model input, or null when there is none (or it holds no text). */
export function latestUserText(input: readonly AgentInputItem[]): string | null {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { type?: unknown; role?: unknown; content?: unknown };
    if (item?.role !== 'user' || (item.type !== undefined && item.type !== 'message')) continue;
    const text =
      typeof item.content === 'string'
        ? item.content
        : Array.isArray(item.content)
          ? item.content
              .filter((p: { type?: unknown; text?: unknown }) => p?.type === 'input_text' && typeof p.text === 'string')
              .map((p: { text: string }) => p.text)
              .join('\n')
          : '';
    return text.trim().length > 0 ? text : null;
  }
  return null;
}

/** Whether the agent has a function tool of that SDK name. */
function hasTool(agent: unknown, name: string): boolean {
  const tools = (agent as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) && tools.some((t: { name?: unknown }) => t?.name === name);
}

/**
 * A `callModelInputFilter` for `run(agent, input, { callModelInputFilter })` or `new Runner({ callModelInputFilter })`:
 * before each model call it recalls from mem with the newest user message and appends the recall block (the
 * memories that pass the injection threshold) to the instructions. No user text or no block: the model data is
 * returned unchanged; a failed recall is logged as a warning and leaves it unchanged too — it never fails the run.
 */
export function memoryRecallFilter(options: MemoryRecallFilterOptions): CallModelInputFilter {
  if (!options || typeof options !== 'object' || !options.stack?.knowledge || !options.principal) {
    throw new MemError(
      'INVALID_INPUT',
      'memoryRecallFilter({ stack, principal }): give the stack createStack returned and who the agent is.',
    );
  }
  const { stack, principal, limit, threshold } = options;
  checkName(principal.space, 'space');
  checkName(principal.agentId, 'agent');
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 50))
    throw new MemError(
      'INVALID_INPUT',
      `memoryRecallFilter: limit must be a whole number from 1 to 50 (got ${limit}).`,
    );
  if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold <= 1))
    throw new MemError('INVALID_INPUT', `memoryRecallFilter: threshold must be from 0 to 1 (got ${threshold}).`);
  const logger = options.logger ?? stderrWarn;
  const getTool = agentsToolName('memory-get');

  return async ({ modelData, agent }) => {
    const query = latestUserText(modelData.input);
    if (query === null) return modelData;
    const readHint =
      options.readHint !== undefined
        ? options.readHint
        : hasTool(agent, getTool)
          ? `To read a memory in full, call ${getTool} with its id.`
          : null;
    let block: string | null;
    try {
      block = (
        await stack.knowledge.recall(principal, query, {
          ...(limit !== undefined ? { limit } : {}),
          ...(threshold !== undefined ? { threshold } : {}),
          readHint,
        })
      ).block;
    } catch (error) {
      logger.warn('recall failed; the model call goes on without the recall block', {
        space: principal.space,
        agentId: principal.agentId,
        error: error instanceof Error ? error.message : String(error),
      });
      return modelData;
    }
    if (!block) return modelData;
    const instructions = modelData.instructions?.trim() ? `${modelData.instructions}\n\n${block}` : block;
    return { ...modelData, instructions };
  };
}
