/**
 * `memoryTools`: mem's operations as LangChain tools for LangGraph.js agents (a `ToolNode`, `createReactAgent`,
 * `model.bindTools`), from the operation table (`toolsOf` of @mem/operations): the same names, descriptions, input
 * schemas and permission checks as over MCP and HTTP.
 */
import { type ToolCall, ToolMessage } from '@langchain/core/messages';
import {
  StructuredTool,
  type StructuredToolInterface,
  ToolInputParsingException,
  type ToolSchemaBase as ToolInputSchemaBase,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import { MemError, type Principal, type Stack } from '@mem/core';
import { memoryToolsOf, type Operation, type OperationTool } from '@mem/operations';

export interface MemoryToolsOptions {
  /**
   * Only these tools, by their table names (any tool of the table: `memory-get`, `smart-recall`, `fact-set`, …).
   * Default: `memory-store`, `memory-search`, `memory-edit`, `memory_rate` and, with a notebook store,
   * `write_memory`, `read_memory`, `delete_memory`, `search_memory`.
   */
  only?: readonly string[];
  /** Leave out the notebook tools (left out anyway without a notebook store). */
  notebook?: boolean;
  /** The operation table to take the tools from (default: `defaultOperations(stack)`). */
  operations?: readonly Operation[];
}

/** What a call answers the model: the result as JSON text, a MemError as `{ "error": { code, message } }`. */
async function answer(t: OperationTool, input: unknown, signal?: AbortSignal): Promise<string> {
  try {
    return JSON.stringify(await t.run(input, signal ? { signal } : {}));
  } catch (error) {
    if (MemError.is(error)) return JSON.stringify({ error: error.toJSON() });
    throw error;
  }
}

const isToolCall = (arg: unknown): arg is ToolCall =>
  typeof arg === 'object' && arg !== null && (arg as { type?: unknown }).type === 'tool_call';

/** One operation as a LangChain tool. */
class OperationStructuredTool extends StructuredTool {
  override name: string;
  override description: string;
  override schema: ToolInputSchemaBase;

  constructor(private readonly operation: OperationTool) {
    super();
    this.name = operation.name;
    this.description = operation.description;
    // A plain copy of the table's JSON Schema: what the model is shown.
    this.schema = JSON.parse(JSON.stringify(operation.inputSchema));
  }

  protected override _call(input: unknown, _run?: unknown, config?: ToolRunnableConfig): Promise<string> {
    return answer(this.operation, input, config?.signal);
  }

  /**
   * LangChain checks the arguments against the schema before `_call`; a call it refuses goes to mem instead, whose
   * own check (after the permission check) says exactly what is wrong, as over MCP and HTTP.
   */
  override async call(...args: Parameters<StructuredTool['call']>): ReturnType<StructuredTool['call']> {
    try {
      return await super.call(...args);
    } catch (error) {
      if (!(error instanceof ToolInputParsingException)) throw error;
      const [arg] = args;
      const content = await answer(this.operation, isToolCall(arg) ? arg.args : arg);
      return isToolCall(arg)
        ? new ToolMessage({ content, tool_call_id: arg.id ?? '', name: this.name, status: 'success' })
        : content;
    }
  }
}

/** mem's tools as LangChain structured tools, acting as `principal` on `stack`. */
export function memoryTools(
  stack: Stack,
  principal: Principal,
  options: MemoryToolsOptions = {},
): StructuredToolInterface[] {
  if (!stack?.knowledge || !principal) {
    throw new MemError(
      'INVALID_INPUT',
      'memoryTools(stack, principal): give the stack createStack returned and who the agent is.',
    );
  }
  return memoryToolsOf(stack, principal, options).map((t) => new OperationStructuredTool(t));
}
