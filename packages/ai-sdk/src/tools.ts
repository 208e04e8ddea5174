/**
 * `memoryTools`: mem's memory and notebook operations as AI SDK tools. The input schemas are @mem/core's own (the
 * ones the HTTP API and MCP use), so a model gets the same fields and the same errors through every door.
 */
import {
  deleteMemoryInput,
  MemError,
  memoryEditInput,
  memoryRateInput,
  memorySearchInput,
  memoryStoreInput,
  type Principal,
  readMemoryInput,
  type Stack,
  searchMemoryInput,
  toSearchJson,
  writeMemoryInput,
} from '@mem/core';
import { type Tool, tool } from 'ai';

export interface MemoryToolsOptions {
  /** Leave out the notebook tools (they need a stack with a notebook store; left out anyway without one). */
  notebook?: boolean;
}

/**
 * The tools: `memory_store`, `memory_search`, `memory_edit`, `memory_rate` and, with a notebook store,
 * `write_memory`, `read_memory`, `delete_memory`, `search_memory`. A refused call throws mem's `MemError` (code and
 * how to fix it), which the AI SDK hands back to the model as the tool's error.
 */
export function memoryTools(
  stack: Stack,
  principal: Principal,
  options: MemoryToolsOptions = {},
): Record<string, Tool> {
  if (!stack || !stack.knowledge) {
    throw new MemError('INVALID_INPUT', 'memoryTools(stack, principal): give the stack createStack returned.');
  }
  const { knowledge } = stack;
  const tools: Record<string, Tool> = {
    memory_store: tool({
      description:
        'Remember one fact, decision or lesson for later tasks. Write it so it makes sense on its own. Secrets are refused.',
      inputSchema: memoryStoreInput,
      execute: (input) => knowledge.store(principal, input),
    }),
    memory_search: tool({
      description:
        'Search long-term memory by meaning and keywords; returns the best matching memories with their ids.',
      inputSchema: memorySearchInput,
      execute: async (input) => ({ results: (await knowledge.search(principal, input)).map(toSearchJson) }),
    }),
    memory_edit: tool({
      description:
        'Correct a memory: replace its content, replace an exact passage (oldText → newText) or move it (newKey). Say why in intent.',
      inputSchema: memoryEditInput,
      execute: (input) => knowledge.edit(principal, input),
    }),
    memory_rate: tool({
      description: 'Rate whether a recalled memory helped with the task (once per memory per taskId).',
      inputSchema: memoryRateInput,
      execute: (input) => knowledge.rate(principal, input),
    }),
  };
  const notebook = options.notebook === false ? undefined : stack.notebook;
  if (notebook) {
    tools.write_memory = tool({
      description:
        'Write your notebook (MEMORY.md by default): append lines, or replace an exact passage given as oldText. It is shown to you in every request.',
      inputSchema: writeMemoryInput,
      execute: (input) => notebook.write(principal, input),
    });
    tools.read_memory = tool({
      description: 'Read a notebook file (MEMORY.md by default).',
      inputSchema: readMemoryInput,
      execute: (input) => notebook.read(principal, input),
    });
    tools.delete_memory = tool({
      description: 'Delete a notebook file (never MEMORY.md).',
      inputSchema: deleteMemoryInput,
      execute: (input) => notebook.delete(principal, input),
    });
    tools.search_memory = tool({
      description: 'Search your notebook files by words; returns files with a snippet.',
      inputSchema: searchMemoryInput,
      execute: async (input) => ({ results: await notebook.search(principal, input) }),
    });
  }
  return tools;
}
