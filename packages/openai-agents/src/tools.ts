import {
  deleteMemoryInput,
  type KnowledgeService,
  MemError,
  memoryEditInput,
  memoryRateInput,
  memorySearchInput,
  memoryStoreInput,
  type Notebook,
  type Principal,
  readMemoryInput,
  searchMemoryInput,
  toSearchJson,
  writeMemoryInput,
} from '@mem/core';
import { type FunctionTool, tool } from '@openai/agents-core';
import { z } from 'zod';

export interface MemoryToolsOptions {
  /** The stack's services: `knowledge` for memory_* tools, `notebook` (optional) for the notebook tools. */
  knowledge?: KnowledgeService | undefined;
  notebook?: Notebook | undefined;
  /** Who the agent is. */
  principal: Principal;
  /** Only these tools (names as below); all available ones by default. */
  only?: MemoryToolName[];
}

export type MemoryToolName =
  | 'memory_store'
  | 'memory_search'
  | 'memory_edit'
  | 'memory_rate'
  | 'write_memory'
  | 'read_memory'
  | 'delete_memory'
  | 'search_memory';

/** The JSON Schema of one of mem's input schemas (the service validates the input again, exactly). */
function parameters(schema: z.ZodType): never {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  // A plain copy: zod marks its output as a Standard Schema, which the SDK accepts only in strict mode.
  return JSON.parse(JSON.stringify(json)) as never;
}

/** A tool whose failures with a MemError come back to the model as `{ error: { code, message } }` so it can fix the call. */
function memTool(
  name: MemoryToolName,
  description: string,
  schema: z.ZodType,
  run: (input: unknown) => Promise<unknown>,
) {
  return tool({
    name,
    description,
    parameters: parameters(schema),
    strict: false,
    execute: async (input: unknown) => {
      try {
        return JSON.stringify(await run(input));
      } catch (error) {
        if (MemError.is(error)) return JSON.stringify({ error: error.toJSON() });
        throw error;
      }
    },
  });
}

/** mem's memory tools as OpenAI Agents SDK function tools. */
export function memoryTools(options: MemoryToolsOptions): FunctionTool[] {
  const { knowledge, notebook, principal } = options;
  if (!knowledge && !notebook) {
    throw new MemError(
      'CAPABILITY_MISSING',
      'memoryTools needs the knowledge service (createStack(...).knowledge), the notebook (a stack with notebooks), or both.',
    );
  }
  const owner = { space: principal.space, agentId: principal.agentId };
  const all: [MemoryToolName, () => FunctionTool][] = [];
  if (knowledge) {
    all.push(
      [
        'memory_store',
        () =>
          memTool(
            'memory_store',
            'Store one fact, decision or lesson in long-term memory, written so it makes sense on its own later.',
            memoryStoreInput,
            (i) => knowledge.store(principal, i),
          ),
      ],
      [
        'memory_search',
        () =>
          memTool(
            'memory_search',
            'Search long-term memory by meaning and keyword; returns the best memories with their ids.',
            memorySearchInput,
            async (i) => (await knowledge.search(principal, i)).map(toSearchJson),
          ),
      ],
      [
        'memory_edit',
        () =>
          memTool(
            'memory_edit',
            'Correct a memory: replace its content, change one exact passage (oldText → newText) or move it (newKey). Say why in intent.',
            memoryEditInput,
            (i) => knowledge.edit(principal, i),
          ),
      ],
      [
        'memory_rate',
        () =>
          memTool(
            'memory_rate',
            'Rate whether a recalled memory was useful for the task (once per memory and task).',
            memoryRateInput,
            (i) => knowledge.rate(principal, i),
          ),
      ],
    );
  }
  if (notebook) {
    all.push(
      [
        'write_memory',
        () =>
          memTool(
            'write_memory',
            'Append to your notebook (MEMORY.md or a topic file), or replace a passage with oldText.',
            writeMemoryInput,
            (i) => notebook.write(owner, i),
          ),
      ],
      [
        'read_memory',
        () =>
          memTool('read_memory', 'Read a notebook file (MEMORY.md by default).', readMemoryInput, (i) =>
            notebook.read(owner, i),
          ),
      ],
      [
        'delete_memory',
        () =>
          memTool('delete_memory', 'Delete a topic file of your notebook.', deleteMemoryInput, (i) =>
            notebook.delete(owner, i),
          ),
      ],
      [
        'search_memory',
        () =>
          memTool('search_memory', 'Search your notebook files by keyword.', searchMemoryInput, (i) =>
            notebook.search(owner, i),
          ),
      ],
    );
  }
  if (options.only) {
    const known = new Set(all.map(([n]) => n));
    const unknown = options.only.filter((n) => !known.has(n));
    if (unknown.length > 0) {
      throw new MemError(
        'INVALID_INPUT',
        `memoryTools: no tool named ${unknown.join(', ')} with the services given; available: ${[...known].join(', ')}.`,
      );
    }
  }
  return all.filter(([n]) => !options.only || options.only.includes(n)).map(([, make]) => make());
}
