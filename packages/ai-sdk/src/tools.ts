/**
 * `memoryTools`: mem's operations as AI SDK tools, from the operation table (`toolsOf` of @mem/operations). Names,
 * descriptions, input schemas and permission checks are the table's, so a model gets the same tools, fields and
 * refusals here as over MCP and HTTP.
 */
import { MemError, type Principal, type Stack } from '@mem/core';
import { memoryToolsOf, type Operation } from '@mem/operations';
import { jsonSchema, type Tool, tool } from 'ai';

export interface MemoryToolsOptions {
  /** Leave out the notebook tools (they need a stack with a notebook store; left out anyway without one). */
  notebook?: boolean;
  /**
   * Only these tools, by their table names (any tool of the table: `memory-get`, `smart-recall`, `fact-set`, …).
   * Default: `memory-store`, `memory-search`, `memory-edit`, `memory_rate` and, with a notebook store,
   * `write_memory`, `read_memory`, `delete_memory`, `search_memory`.
   */
  only?: readonly string[];
  /** The operation table to take the tools from (default: `defaultOperations(stack)`). */
  operations?: readonly Operation[];
}

/**
 * The tools, keyed by name. A refused call throws mem's `MemError` (code and how to fix it), which the AI SDK hands
 * back to the model as the tool's error.
 */
export function memoryTools(
  stack: Stack,
  principal: Principal,
  options: MemoryToolsOptions = {},
): Record<string, Tool> {
  if (!stack || !stack.knowledge) {
    throw new MemError('INVALID_INPUT', 'memoryTools(stack, principal): give the stack createStack returned.');
  }
  const tools: Record<string, Tool> = {};
  for (const t of memoryToolsOf(stack, principal, options)) {
    tools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(t.inputSchema as never),
      execute: (input, { abortSignal }) => t.run(input, abortSignal ? { signal: abortSignal } : {}),
    });
  }
  return tools;
}
