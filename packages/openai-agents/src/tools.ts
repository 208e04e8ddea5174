/**
 * `memoryTools`: mem's operations as OpenAI Agents SDK function tools, from the operation table (`toolsOf` of
 * @mem/operations): the same names, descriptions, input schemas and permission checks as over MCP and HTTP.
 */
import { MemError, type Principal, type Stack } from '@mem/core';
import { defaultOperations, describeTools, memoryToolsOf, type Operation, type OperationTool } from '@mem/operations';
import { type FunctionTool, tool } from '@openai/agents-core';

export interface MemoryToolsOptions {
  /** The stack from createStack. */
  stack: Stack;
  /** Who the agent is: every call acts as this principal, with its permissions. */
  principal: Principal;
  /**
   * Only these tools, by their table names or as the SDK shows them (`memory-get` or `memory_get`; any tool of the
   * table: `smart-recall`, `fact-set`, …).
   * Default: `memory-store`, `memory-search`, `memory-edit`, `memory_rate` and, with a notebook store,
   * `write_memory`, `read_memory`, `delete_memory`, `search_memory`.
   */
  only?: readonly string[];
  /** Leave out the notebook tools (left out anyway without a notebook store). */
  notebook?: boolean;
  /** The operation table to take the tools from (default: `defaultOperations(stack)`). */
  operations?: readonly Operation[];
}

/** A tool whose failures with a MemError come back to the model as `{ error: { code, message } }` so it can fix the call. */
function functionTool(t: OperationTool): FunctionTool {
  return tool({
    name: t.name,
    description: t.description,
    // A plain copy of the table's JSON Schema: the SDK takes a Standard Schema object only in strict mode.
    parameters: JSON.parse(JSON.stringify(t.inputSchema)) as never,
    strict: false,
    execute: async (input: unknown) => {
      try {
        return JSON.stringify(await t.run(input));
      } catch (error) {
        if (MemError.is(error)) return JSON.stringify({ error: error.toJSON() });
        throw error;
      }
    },
  });
}

/**
 * The name the Agents SDK gives a tool: it turns every character but letters and digits into `_`, so the table's
 * `memory-store` is `memory_store` here (`memory_rate`, `write_memory`, … stay as they are).
 */
export function agentsToolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9]/g, '_');
}

/** mem's tools as OpenAI Agents SDK function tools. */
export function memoryTools(options: MemoryToolsOptions): FunctionTool[] {
  if (!options || typeof options !== 'object' || !options.stack?.knowledge || !options.principal) {
    throw new MemError(
      'INVALID_INPUT',
      'memoryTools({ stack, principal }): give the stack createStack returned and who the agent is.',
    );
  }
  const { stack, principal } = options;
  // `only` may name a tool as the table does (`memory-store`) or as the SDK shows it (`memory_store`).
  const tableName = new Map<string, string>();
  for (const t of describeTools(options.operations ?? defaultOperations(stack)))
    tableName.set(agentsToolName(t.name), t.name);
  const only = options.only?.map((name) => tableName.get(name) ?? name);
  return memoryToolsOf(stack, principal, { ...options, only }).map(functionTool);
}
