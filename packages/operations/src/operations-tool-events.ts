/** Per session of an agent: its tool-call log (tool-event-record, tool-event-list; rules in operations-state.ts). */
import { type JsonValue, jsonValueSchema, type ToolEvent, toolEventListInput, toolEventRecordInput } from '@mem/core';
import { newId } from '@mem/core/adapter';
import { z } from 'zod';
import { bool, int, jsonArg, need, num as numFlag, required, show, str } from './cli-binding.js';
import { defineOperation } from './operation.js';
import { defined, num, wholeQuery } from './operation-helpers.js';
import * as kit from './operations-state-kit.js';

const toolEventSchema = z.object({
  ...kit.ofSession,
  id: z.string(),
  tool: z.string(),
  input: jsonValueSchema,
  output: jsonValueSchema,
  latencyMs: z.number(),
  error: z.string().nullable(),
  at: z.string(),
});

export const toolEventRecord = defineOperation({
  name: 'tool-event-record',
  summary: 'Log one tool call of a session (tool, input, output, latency, error)',
  description:
    `Log a tool call you made in a session: the tool, its JSON input and output (at most 1 MiB each), how long it took and the error when it failed. ${kit.SESSION_GUIDE} ` +
    'Ids are unique per space (CONFLICT when reused); the time defaults to now. Never log secrets. Returns {event}.',
  group: 'structured',
  input: toolEventRecordInput,
  output: z.object({ event: toolEventSchema }),
  write: true,
  http: {
    method: 'POST',
    path: kit.sessionPath('tool-events'),
    body: kit.noAgent(toolEventRecordInput),
    input: kit.withSession,
    status: () => 201,
    successStatus: [201],
  },
  tool: true,
  cli: {
    command: 'tool-events record',
    summary: 'log one tool call of a session',
    usage:
      'mem tool-events record <session> --tool T --latency-ms N [--input JSON] [--output JSON] [--error E] [--id I] [--at ISO]',
    input: (cli) => {
      const tool = required(str(cli.flags, 'tool'), '--tool T is required (the tool that was called).');
      const latencyMs = required(
        numFlag(cli.flags, 'latency-ms'),
        '--latency-ms N is required (how long the call took).',
      );
      return defined({
        sessionId: need(cli, 0, 'the session id'),
        tool,
        latencyMs,
        input: jsonArg(str(cli.flags, 'input'), '--input'),
        output: jsonArg(str(cli.flags, 'output'), '--output'),
        error: str(cli.flags, 'error'),
        id: str(cli.flags, 'id'),
        at: str(cli.flags, 'at'),
      });
    },
    print: (r: { event: { id: string; tool: string } }) => `Logged ${r.event.tool} call ${r.event.id}.`,
  },
  handle: async (ctx, input) => {
    const s = kit.session(ctx, input);
    const event: ToolEvent = {
      id: input.id ?? newId(),
      sessionId: s.stored,
      tool: input.tool,
      input: (input.input ?? null) as JsonValue,
      output: (input.output ?? null) as JsonValue,
      latencyMs: input.latencyMs,
      error: input.error ?? null,
      at: input.at ?? kit.now(ctx),
    };
    await kit.port(ctx, 'toolEvents').record(ctx.principal.space, event);
    return { event: kit.shown(event, s) };
  },
});

const toolEventQuery = z
  .object({
    tool: z.string().optional().describe('Only calls of this tool.'),
    since: z.string().optional().describe('Only calls at or after this ISO time.'),
    until: z.string().optional().describe('Only calls before this ISO time.'),
    failed: z.enum(['true', 'false']).optional().describe('Only failed (true) or only successful (false) calls.'),
    limit: wholeQuery('limit').optional().describe('The newest this many (default 100).'),
  })
  .strict();

export const toolEventList = defineOperation({
  name: 'tool-event-list',
  summary: 'The tool calls of a session, with their count',
  description:
    `List the logged tool calls of a session (the newest limit, default 100, oldest first), filtered by tool, time range or failed; total counts every match. ${kit.SESSION_GUIDE} ` +
    'Useful to see which tools failed and how long they took. Returns {events, total}.',
  group: 'structured',
  input: toolEventListInput,
  output: z.object({ events: z.array(toolEventSchema), total: z.number() }),
  write: false,
  http: {
    method: 'GET',
    path: kit.sessionPath('tool-events'),
    query: toolEventQuery,
    input: ({ params, query }) =>
      defined({
        sessionId: params.session,
        tool: query.tool,
        since: query.since,
        until: query.until,
        failed: query.failed === undefined ? undefined : query.failed === 'true',
        limit: num(query.limit),
      }),
  },
  tool: true,
  cli: {
    command: 'tool-events list',
    summary: 'the logged tool calls of a session, with their count',
    usage: 'mem tool-events list <session> [--tool T] [--since ISO] [--until ISO] [--failed true|false] [--limit N]',
    input: (cli) =>
      defined({
        sessionId: need(cli, 0, 'the session id'),
        tool: str(cli.flags, 'tool'),
        since: str(cli.flags, 'since'),
        until: str(cli.flags, 'until'),
        failed: bool(cli.flags, 'failed'),
        limit: int(cli.flags, 'limit'),
      }),
    print: (r: {
      events: { at: string; tool: string; latencyMs: number; error: string | null; output: unknown }[];
      total: number;
    }) =>
      r.events.length === 0
        ? 'No tool events.'
        : `${r.events
            .map((e) => `${e.at}  ${e.tool}  ${e.latencyMs} ms  ${e.error ? `failed: ${e.error}` : show(e.output)}`)
            .join('\n')}\n(${r.total} in all)`,
  },
  handle: async (ctx, input) => {
    const s = kit.session(ctx, input);
    const filter = defined({
      sessionId: s.stored,
      tool: input.tool,
      since: input.since,
      until: input.until,
      failed: input.failed,
    });
    const store = kit.port(ctx, 'toolEvents');
    const [events, total] = await Promise.all([
      store.list(ctx.principal.space, filter, input.limit ?? 100),
      store.count(ctx.principal.space, filter),
    ]);
    return { events: events.map((e) => kit.shown(e, s)), total };
  },
});
