/**
 * The operation table as agent tools, for every framework door: MCP lists `describeTools`, and the AI SDK, OpenAI
 * Agents and the other framework adapters wrap `toolsOf`. A tool's name, description and input schema are the
 * operation's own, and it runs through `op.run`, so the permission check of `defineOperation` applies to every door.
 */
import { MemError, type Principal, type Stack } from '@mem/core';
import { memoByKey } from '@mem/core/adapter';
import type { z } from 'zod';
import { type JsonSchema, toJsonSchema } from './json-schema.js';
import type { OpContext, Operation } from './operation.js';
import { defaultOperations } from './operations.js';

/** What a door shows an agent of one tool. */
export interface ToolDescription {
  /** The tool name agents call (`memory-store`, `write_memory`, …): the operation's tool binding. */
  name: string;
  /** The operation it runs (its operationId). */
  operation: string;
  /** One line (the operation's summary). */
  title: string;
  /** What it does and how to use it well. */
  description: string;
  /** JSON Schema (draft 2020-12) of its arguments: always an object schema. */
  inputSchema: JsonSchema;
  /** True when it changes nothing. */
  readOnly: boolean;
  /** True when it deletes or overwrites (a DELETE route, an edit). */
  destructive: boolean;
}

/** A tool bound to a stack and a principal: call `run` with the agent's arguments. */
export interface OperationTool extends ToolDescription {
  /** The operation's input schema (the one `run` validates against). */
  input: z.ZodType;
  /** Run the operation as the principal; a refusal throws its `MemError` (code and how to fix the call). */
  run(args: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
}

export interface ToolsOfOptions {
  stack: Stack;
  /** Who the agent is: every call acts as this principal, with its permissions. */
  principal: Principal;
  /** Only these tools (by tool name), in this order; every tool of `operations` by default. */
  only?: readonly string[];
}

/** The tools of `operations` (those with a tool binding), described once per table. */
export const describeTools: (operations: readonly Operation[]) => ToolDescription[] = memoByKey((operations) =>
  operations.filter((op) => op.tool).map(describe),
);

function describe(op: Operation): ToolDescription {
  return {
    name: op.tool!.name,
    operation: op.name,
    title: op.summary,
    description: op.description,
    inputSchema: op.tool!.inputSchema ?? toJsonSchema(op.input),
    readOnly: !op.write,
    destructive: op.write && (op.http?.method === 'DELETE' || op.name === 'memory-edit'),
  };
}

/** The names `only` asks for that `available` lacks, as the INVALID_INPUT a door answers. */
function checkOnly(only: readonly string[], available: readonly string[], who: string): void {
  const known = new Set(available);
  const unknown = only.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new MemError(
      'INVALID_INPUT',
      `${who}: no tool named ${unknown.map((n) => `"${n}"`).join(', ')} on this stack; available: ${available.join(', ')}.`,
      { details: { unknown, available: [...available] } },
    );
  }
}

/**
 * The tools of `operations` bound to a stack and a principal. `only` picks tools by name (an unknown name is
 * INVALID_INPUT naming the available ones). Each `run` goes through the operation's `run`, permission check first.
 */
export function toolsOf(operations: readonly Operation[], options: ToolsOfOptions): OperationTool[] {
  if (!options || typeof options !== 'object' || !options.stack || !options.principal) {
    throw new MemError('INVALID_INPUT', 'toolsOf(operations, { stack, principal }): give the stack and who acts.');
  }
  const { stack, principal, only } = options;
  const byName = new Map(operations.filter((op) => op.tool).map((op) => [op.tool!.name, op]));
  const descriptions = new Map(describeTools(operations).map((d) => [d.name, d]));
  if (only) checkOnly(only, [...byName.keys()], 'toolsOf');
  return (only ?? [...byName.keys()]).map((name) => {
    const op = byName.get(name)!;
    return {
      ...descriptions.get(name)!,
      input: op.input,
      run: (args, runOptions) => {
        const ctx: OpContext = { principal, stack, params: {}, transport: 'tool', signal: runOptions?.signal };
        return op.run(ctx, args ?? {});
      },
    };
  });
}

/**
 * The memory tools a framework adapter offers by default: knowledge memory's store, search, edit and rate, and the
 * notebook's four (when the stack has a notebook).
 */
export const MEMORY_TOOL_NAMES = [
  'memory-store',
  'memory-search',
  'memory-edit',
  'memory_rate',
  'write_memory',
  'read_memory',
  'delete_memory',
  'search_memory',
] as const;

/** The default memory tools that `operations` has (the notebook ones only with a notebook). */
export function memoryToolNames(operations: readonly Operation[]): string[] {
  const present = new Set(operations.flatMap((op) => (op.tool ? [op.tool.name] : [])));
  return MEMORY_TOOL_NAMES.filter((name) => present.has(name));
}

/** What a framework adapter's `memoryTools` takes besides the stack and principal. */
export interface MemoryToolsOf {
  /** Only these tools, by table name; default `memoryToolNames` of the operations. */
  only?: readonly string[] | undefined;
  /** `false`: leave out the notebook tools. */
  notebook?: boolean | undefined;
  /** The table to take them from (default `defaultOperations(stack)`). */
  operations?: readonly Operation[] | undefined;
}

/**
 * The tools a framework adapter offers: the memory tools by default, or those `only` names, of the stack's table
 * (without the notebook group when `notebook` is false). Each adapter wraps the result in its framework's tool type.
 */
export function memoryToolsOf(stack: Stack, principal: Principal, options: MemoryToolsOf = {}): OperationTool[] {
  let operations = options.operations ?? defaultOperations(stack);
  if (options.notebook === false) operations = operations.filter((op) => op.group !== 'notebook');
  return toolsOf(operations, { stack, principal, only: options.only ?? memoryToolNames(operations) });
}
