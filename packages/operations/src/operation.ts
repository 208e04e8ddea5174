/**
 * An operation is described once: its input schema (from core), who may run it, its HTTP binding, its MCP tool, its
 * CLI command and its handler. The HTTP router, the OpenAPI document, the MCP tool list and the `mem` commands are all
 * derived from a list of these.
 */
import { type Principal, parseInput, type Stack } from '@mem/core';
import type { z } from 'zod';
import type { CliBinding } from './cli-binding.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the handler of an operation works with: who asks, and the stack (every service is on it). */
export interface OpContext {
  principal: Principal;
  stack: Stack;
  /** Path parameters of the HTTP route (e.g. `agent`); empty over MCP. */
  params: Record<string, string>;
  /**
   * Which door the request came through (`cli`: the `mem` command runs the operation in process; `tool`: a framework
   * adapter's tool from `toolsOf`).
   */
  transport: 'http' | 'mcp' | 'cli' | 'tool';
  /** Aborted when the client goes away (long streams stop early). */
  signal?: AbortSignal | undefined;
}

export interface HttpParts {
  params: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body (already validated against `body` when given), the raw text for `bodyType: 'ndjson'`, or undefined. */
  body: unknown;
}

export interface HttpBinding {
  method: HttpMethod;
  /** OpenAPI-style template, e.g. `/v1/memories/{id}`. */
  path: string;
  /**
   * Request body schema when it differs from the operation input (e.g. PATCH: memory-edit minus the id). On a
   * DELETE route it makes the server read an (optional) JSON body, which is documented as not required.
   */
  body?: z.ZodType;
  /** Query parameters (all strings). */
  query?: z.ZodObject;
  /** `ndjson`: the body is JSON Lines text, handed over as a string. Default `json` (for POST/PATCH). */
  bodyType?: 'json' | 'ndjson';
  /** `ndjson`: the handler returns an async iterable, streamed one JSON document per line. */
  responseType?: 'json' | 'ndjson';
  /** Build the operation input. Default: the body merged with the path parameters (path wins). */
  input?: (parts: HttpParts) => unknown;
  /** Status code of a success (default 200). */
  status?: (result: unknown) => number;
  /** Status codes documented in OpenAPI besides 200 (e.g. 201). */
  successStatus?: number[];
}

export interface ToolBinding {
  /** The MCP tool name agents see (docs/ranking.md): the operation's name (`defineOperation` sets it). */
  name: string;
  /** JSON Schema shown to agents, when the operation input is not an object (e.g. a union) — derived, not written. */
  inputSchema?: Record<string, unknown>;
}

export interface Operation {
  /** operationId; also the name in errors ("Invalid input for memory-store: …"). */
  name: string;
  /** One line, for OpenAPI's summary and the inspector. */
  summary: string;
  /** What it does and how to use it well: the MCP tool description and OpenAPI's description. */
  description: string;
  /** OpenAPI tag. */
  group: 'knowledge' | 'conversation' | 'notebook' | 'structured' | 'graph' | 'admin';
  /** The input schema: one per operation, shared by HTTP validation, OpenAPI and MCP. */
  input: z.ZodType;
  /** Response schema for OpenAPI, when one exists as a zod schema. */
  output?: z.ZodType;
  /** True for operations that change data (finished before shutdown; documented). */
  write: boolean;
  /**
   * Who may run it: throws (FORBIDDEN, saying what to do) for a principal that may not; core's permissions
   * (`permissions.consolidate`, `.forget`, `.injectLearning`: `leadOnly`). Checked before the handler runs, whatever the door: no door calls its
   * own check.
   */
  permission?: (principal: Principal) => void;
  http?: HttpBinding;
  tool?: ToolBinding;
  cli?: CliBinding;
  run(ctx: OpContext, input: unknown): Promise<unknown>;
}

/**
 * An operation as it is written: either `run`, which gets the input as the door received it (for operations whose
 * service reads and checks the input itself), or `handle`, which gets it already read by `input` (INVALID_INPUT
 * naming the operation otherwise): the table checks it, so no handler repeats the check.
 */
export type OperationSpec<S extends z.ZodType> = Omit<Operation, 'input' | 'run' | 'tool' | 'cli'> & {
  input: S;
  /** `true` (or its JSON Schema for agents, when the input is not an object) makes it an agent tool named `name`. */
  tool?: true | Omit<ToolBinding, 'name'>;
  /** The CLI command; `summary` defaults to the operation's summary, lower-cased first letter. */
  cli?: Omit<CliBinding, 'summary'> & { summary?: string };
} & (
    | { run: Operation['run']; handle?: never }
    | { handle(ctx: OpContext, input: z.infer<S>): Promise<unknown>; run?: never }
  );

/**
 * Define an operation: its handler runs only after its permission check (and, for `handle`, after its input is read by
 * the operation's schema), so no door can skip either.
 */
export function defineOperation<S extends z.ZodType>(spec: OperationSpec<S>): Operation {
  const { permission, run, handle, tool, cli, ...declared } = spec;
  const rest: Omit<Operation, 'run' | 'permission'> = {
    ...declared,
    ...(tool === undefined ? {} : { tool: { name: spec.name, ...(tool === true ? {} : tool) } }),
    ...(cli === undefined
      ? {}
      : { cli: { ...cli, summary: cli.summary ?? spec.summary.charAt(0).toLowerCase() + spec.summary.slice(1) } }),
  };
  const body: Operation['run'] = handle ? (ctx, raw) => handle(ctx, parseInput(spec.input, spec.name, raw)) : run!;
  if (!permission) return { ...rest, run: body };
  return {
    ...rest,
    permission,
    run: async (ctx, input) => {
      permission(ctx.principal);
      return body(ctx, input);
    },
  };
}
