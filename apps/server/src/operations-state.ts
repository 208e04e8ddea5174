/**
 * The structured state an agent loop keeps (docs/structured.md) over HTTP, MCP and the CLI: goals of users, and per
 * session of an agent its running summary, JSON state, phase and tool-call log.
 *
 * Rules of the doors (one implementation: `mem goals|summaries|session-state|phases|tool-events` run these
 * operations in process):
 * - goals belong to users, like facts: any principal of the space may read and set them;
 * - sessions belong to agents: a worker acts on its own agent's sessions, a lead on any agent's of its space
 *   (another agent's session answers NOT_FOUND to a worker, as notebooks do). The ports key sessions by id only, so
 *   the doors store session `s` of agent `a` under the id `a/s`; answers carry `agent` and the id as given;
 * - goal and summary texts refuse secrets like facts (SECRET_DETECTED, the stack's guard: mem's rules and the stack's
 *   secret scanner); the space always comes from the principal;
 * - a stack without the port answers CAPABILITY_MISSING (501).
 */
import {
  agentSessionId,
  type Goal,
  goalFinishInput,
  goalGetInput,
  goalListInput,
  goalSetInput,
  type JsonObject,
  type JsonValue,
  jsonObjectSchema,
  jsonValueSchema,
  MemError,
  type PhaseChange,
  parseInput,
  phaseHistoryInput,
  phaseSetInput,
  type SessionState,
  type SessionSummary,
  sessionRefInput,
  sessionStateSetInput,
  summarySaveInput,
  type ToolEvent,
  toolEventListInput,
  toolEventRecordInput,
} from '@mem/core';
import { newId } from '@mem/core/adapter';
import { z } from 'zod';
import { defineOperation, type HttpParts, type OpContext, type Operation } from './operation.js';
import { targetAgent } from './operations-agent.js';

// ---------- helpers ----------

const port = <K extends 'goals' | 'summaries' | 'sessionState' | 'phases' | 'toolEvents'>(ctx: OpContext, name: K) =>
  ctx.stack.port(name);
const now = (ctx: OpContext) => ctx.stack.clock.now().toISOString();
const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The session an operation acts on: the agent (after the permission check) and the id the stores use. */
function session(ctx: OpContext, input: { agent?: string | undefined; sessionId: string }) {
  const agent = targetAgent(ctx, input.agent, 'session');
  return { agent, sessionId: input.sessionId, stored: agentSessionId(agent, input.sessionId) };
}

/** A record as the doors show it: the session id as given, with its agent. */
const shown = <T extends { sessionId: string | null }>(record: T, s: { agent: string; sessionId: string }) => ({
  ...record,
  agent: s.agent,
  sessionId: s.sessionId,
});

/** HTTP: the body plus the session from the path (`/v1/agents/{agent}/sessions/{session}/…`). */
const withSession = ({ params, body }: HttpParts) => ({ ...(body as object | undefined), sessionId: params.session });
const sessionPath = (rest: string) => `/v1/agents/{agent}/sessions/{session}/${rest}`;
const noAgent = <S extends z.ZodObject>(schema: S) => schema.omit({ agent: true, sessionId: true } as never);
const wholeQuery = (what: string) => z.string().regex(/^\d+$/, `${what} must be a whole number`);
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

// ---------- outputs (OpenAPI, MCP outputSchema) ----------

const goalSchema = z.object({
  id: z.string(),
  user: z.string(),
  topic: z.string().nullable(),
  goal: z.string(),
  status: z.enum(['active', 'completed', 'abandoned', 'replaced']),
  metadata: jsonObjectSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
const ofSession = { agent: z.string(), sessionId: z.string() };
const summarySchema = z.object({
  ...ofSession,
  summary: z.string(),
  messagesCovered: z.number(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const stateSchema = z.object({ ...ofSession, state: jsonValueSchema, updatedAt: z.string() });
const phaseSchema = z.object({ ...ofSession, phase: z.string(), metadata: jsonObjectSchema, at: z.string() });
const toolEventSchema = z.object({
  ...ofSession,
  id: z.string(),
  tool: z.string(),
  input: jsonValueSchema,
  output: jsonValueSchema,
  latencyMs: z.number(),
  error: z.string().nullable(),
  at: z.string(),
});
const deleted = z.object({ deleted: z.literal(true) });

// ---------- goals ----------

const GOALS_GUIDE =
  'A goal is what a user wants to achieve, global or per topic (e.g. a project); a user has at most one active goal per topic: setting a new one marks the previous "replaced". ' +
  'Read the active goal before planning; finish it (completed or abandoned) when it ends. Never store secrets.';

const goalQuery = z
  .object({
    user: z.string().describe('The user the goals belong to.'),
    topic: z.string().optional().describe('A topic; omit for the global goal.'),
  })
  .strict();

export const goalSet = defineOperation({
  name: 'goal-set',
  summary: "Set a user's active goal (the previous one becomes replaced)",
  description: `${GOALS_GUIDE} Returns {goal, replaced} — replaced is the goal that was active before, or null.`,
  group: 'structured',
  input: goalSetInput,
  output: z.object({ goal: goalSchema, replaced: goalSchema.nullable() }),
  write: true,
  http: { method: 'PUT', path: '/v1/goals' },
  tool: { name: 'goal-set' },
  run: async (ctx, raw) => {
    const input = parseInput(goalSetInput, 'goal-set', raw);
    return port(ctx, 'goals').setActive(ctx.principal.space, {
      id: newId(),
      user: input.user,
      topic: input.topic ?? null,
      goal: input.goal,
      metadata: (input.metadata ?? {}) as JsonObject,
      at: now(ctx),
    });
  },
});

export const goalGet = defineOperation({
  name: 'goal-get',
  summary: "A user's active goal (global or of a topic)",
  description: `${GOALS_GUIDE} Returns {goal} — the active goal of the user for the topic (or the global one), null when none is active.`,
  group: 'structured',
  input: goalGetInput,
  output: z.object({ goal: goalSchema.nullable() }),
  write: false,
  http: { method: 'GET', path: '/v1/goals/active', query: goalQuery, input: ({ query }) => query },
  tool: { name: 'goal-get' },
  run: async (ctx, raw) => {
    const input = parseInput(goalGetInput, 'goal-get', raw);
    return { goal: await port(ctx, 'goals').getActive(ctx.principal.space, input.user, input.topic ?? null) };
  },
});

export const goalList = defineOperation({
  name: 'goal-list',
  summary: "A user's goals, newest first (every status)",
  description:
    'List the goals of a user, newest first, active or ended. Without topic every topic is listed. Returns {goals}.',
  group: 'structured',
  input: goalListInput,
  output: z.object({ goals: z.array(goalSchema) }),
  write: false,
  http: {
    method: 'GET',
    path: '/v1/goals',
    query: goalQuery.extend({ limit: wholeQuery('limit').optional().describe('At most this many.') }),
    input: ({ query }) => defined({ user: query.user, topic: query.topic, limit: num(query.limit) }),
  },
  tool: { name: 'goal-list' },
  run: async (ctx, raw) => {
    const input = parseInput(goalListInput, 'goal-list', raw);
    const goals: Goal[] = await port(ctx, 'goals').list(
      ctx.principal.space,
      input.user,
      defined({ topic: input.topic, limit: input.limit }),
    );
    return { goals };
  },
});

export const goalFinish = defineOperation({
  name: 'goal-finish',
  summary: "End a user's active goal (completed or abandoned)",
  description: `${GOALS_GUIDE} Returns {goal} as ended; 404 when the user has no active goal for that topic.`,
  group: 'structured',
  input: goalFinishInput,
  output: z.object({ goal: goalSchema }),
  write: true,
  http: { method: 'POST', path: '/v1/goals/finish' },
  tool: { name: 'goal-finish' },
  run: async (ctx, raw) => {
    const input = parseInput(goalFinishInput, 'goal-finish', raw);
    const topic = input.topic ?? null;
    const goal = await port(ctx, 'goals').finish(ctx.principal.space, input.user, topic, input.status, now(ctx));
    if (!goal)
      throw new MemError(
        'NOT_FOUND',
        `User "${input.user}" has no active goal${topic ? ` in topic ${topic}` : ''}. See their goals with goal-list.`,
      );
    return { goal };
  },
});

// ---------- session summaries ----------

const SESSION_GUIDE =
  'Sessions belong to an agent: you act on your own (a lead may name another agent of its space with agent).';

export const summarySave = defineOperation({
  name: 'summary-save',
  summary: 'Save the running summary of a session (version +1)',
  description:
    `Keep a running summary of a session: what was asked, decided and done so far, and how many messages it covers. ${SESSION_GUIDE} ` +
    'Each save raises version by one; pass expectedVersion (from summary-get, 0 when none) to refuse the save with CONFLICT if someone saved meanwhile. Never include secrets.',
  group: 'structured',
  input: summarySaveInput,
  output: summarySchema,
  write: true,
  http: { method: 'PUT', path: sessionPath('summary'), body: noAgent(summarySaveInput), input: withSession },
  tool: { name: 'summary-save' },
  run: async (ctx, raw) => {
    const input = parseInput(summarySaveInput, 'summary-save', raw);
    const s = session(ctx, input);
    const write = { sessionId: s.stored, summary: input.summary, messagesCovered: input.messagesCovered, at: now(ctx) };
    const summaries = port(ctx, 'summaries');
    const saved: SessionSummary =
      input.expectedVersion === undefined
        ? await summaries.save(ctx.principal.space, write)
        : await summaries.save(ctx.principal.space, write, input.expectedVersion);
    return shown(saved, s);
  },
});

export const summaryGet = defineOperation({
  name: 'summary-get',
  summary: 'The running summary of a session',
  description: `Read the running summary of a session before continuing it. ${SESSION_GUIDE} Returns {summary}, null when none was saved.`,
  group: 'structured',
  input: sessionRefInput,
  output: z.object({ summary: summarySchema.nullable() }),
  write: false,
  http: { method: 'GET', path: sessionPath('summary'), input: withSession },
  tool: { name: 'summary-get' },
  run: async (ctx, raw) => {
    const s = session(ctx, parseInput(sessionRefInput, 'summary-get', raw));
    const found = await port(ctx, 'summaries').get(ctx.principal.space, s.stored);
    return { summary: found ? shown(found, s) : null };
  },
});

export const summaryDelete = defineOperation({
  name: 'summary-delete',
  summary: 'Delete the summary of a session',
  description: `Delete the running summary of a session. ${SESSION_GUIDE} 404 when there is none.`,
  group: 'structured',
  input: sessionRefInput,
  output: deleted,
  write: true,
  http: { method: 'DELETE', path: sessionPath('summary'), input: withSession },
  tool: { name: 'summary-delete' },
  run: async (ctx, raw) => {
    const s = session(ctx, parseInput(sessionRefInput, 'summary-delete', raw));
    if (!(await port(ctx, 'summaries').delete(ctx.principal.space, s.stored)))
      throw new MemError('NOT_FOUND', `Session "${s.sessionId}" of agent "${s.agent}" has no summary.`);
    return { deleted: true };
  },
});

// ---------- session state ----------

export const sessionStateSet = defineOperation({
  name: 'session-state-set',
  summary: 'Replace the JSON state of a session',
  description:
    `Keep working state of a session (a plan, a cursor, flags) as one JSON value of at most 1 MiB; each set replaces the whole state, so read, change and set it back. ${SESSION_GUIDE} ` +
    'Returns the state as stored. Never store secrets.',
  group: 'structured',
  input: sessionStateSetInput,
  output: stateSchema,
  write: true,
  http: { method: 'PUT', path: sessionPath('state'), body: noAgent(sessionStateSetInput), input: withSession },
  tool: { name: 'session-state-set' },
  run: async (ctx, raw) => {
    const input = parseInput(sessionStateSetInput, 'session-state-set', raw);
    const s = session(ctx, input);
    const store = port(ctx, 'sessionState');
    await store.set(ctx.principal.space, s.stored, input.state as JsonValue, now(ctx));
    const stored = (await store.get(ctx.principal.space, s.stored)) as SessionState;
    return shown(stored, s);
  },
});

export const sessionStateGet = defineOperation({
  name: 'session-state-get',
  summary: 'The JSON state of a session',
  description: `Read the working state of a session. ${SESSION_GUIDE} Returns {state}: {agent, sessionId, state, updatedAt}, or null when none was set.`,
  group: 'structured',
  input: sessionRefInput,
  output: z.object({ state: stateSchema.nullable() }),
  write: false,
  http: { method: 'GET', path: sessionPath('state'), input: withSession },
  tool: { name: 'session-state-get' },
  run: async (ctx, raw) => {
    const s = session(ctx, parseInput(sessionRefInput, 'session-state-get', raw));
    const found = await port(ctx, 'sessionState').get(ctx.principal.space, s.stored);
    return { state: found ? shown(found, s) : null };
  },
});

export const sessionStateDelete = defineOperation({
  name: 'session-state-delete',
  summary: 'Delete the JSON state of a session',
  description: `Delete the working state of a session when it ends. ${SESSION_GUIDE} 404 when there is none.`,
  group: 'structured',
  input: sessionRefInput,
  output: deleted,
  write: true,
  http: { method: 'DELETE', path: sessionPath('state'), input: withSession },
  tool: { name: 'session-state-delete' },
  run: async (ctx, raw) => {
    const s = session(ctx, parseInput(sessionRefInput, 'session-state-delete', raw));
    if (!(await port(ctx, 'sessionState').delete(ctx.principal.space, s.stored)))
      throw new MemError('NOT_FOUND', `Session "${s.sessionId}" of agent "${s.agent}" has no state.`);
    return { deleted: true };
  },
});

// ---------- phases ----------

export const phaseSet = defineOperation({
  name: 'phase-set',
  summary: 'Move a session into a phase (appended to its history)',
  description: `Record that a session enters a phase (e.g. planning, executing, review); the history keeps every change. ${SESSION_GUIDE} Returns {phase}: the change as recorded.`,
  group: 'structured',
  input: phaseSetInput,
  output: z.object({ phase: phaseSchema }),
  write: true,
  http: { method: 'PUT', path: sessionPath('phase'), body: noAgent(phaseSetInput), input: withSession },
  tool: { name: 'phase-set' },
  run: async (ctx, raw) => {
    const input = parseInput(phaseSetInput, 'phase-set', raw);
    const s = session(ctx, input);
    const change: PhaseChange = {
      sessionId: s.stored,
      phase: input.phase,
      metadata: (input.metadata ?? {}) as JsonObject,
      at: now(ctx),
    };
    await port(ctx, 'phases').set(ctx.principal.space, change);
    return { phase: shown(change, s) };
  },
});

export const phaseGet = defineOperation({
  name: 'phase-get',
  summary: 'The current phase of a session',
  description: `Read the phase a session is in (the change recorded last). ${SESSION_GUIDE} Returns {phase}, null when none was set.`,
  group: 'structured',
  input: sessionRefInput,
  output: z.object({ phase: phaseSchema.nullable() }),
  write: false,
  http: { method: 'GET', path: sessionPath('phase'), input: withSession },
  tool: { name: 'phase-get' },
  run: async (ctx, raw) => {
    const s = session(ctx, parseInput(sessionRefInput, 'phase-get', raw));
    const current = await port(ctx, 'phases').current(ctx.principal.space, s.stored);
    return { phase: current ? shown(current, s) : null };
  },
});

export const phaseHistory = defineOperation({
  name: 'phase-history',
  summary: 'The phase changes of a session, oldest first',
  description: `List the phase changes of a session, oldest first; with limit, the newest that many. ${SESSION_GUIDE} Returns {phases}.`,
  group: 'structured',
  input: phaseHistoryInput,
  output: z.object({ phases: z.array(phaseSchema) }),
  write: false,
  http: {
    method: 'GET',
    path: sessionPath('phases'),
    query: z.object({ limit: wholeQuery('limit').optional().describe('The newest this many.') }).strict(),
    input: ({ params, query }) => defined({ sessionId: params.session, limit: num(query.limit) }),
  },
  tool: { name: 'phase-history' },
  run: async (ctx, raw) => {
    const input = parseInput(phaseHistoryInput, 'phase-history', raw);
    const s = session(ctx, input);
    const phases = port(ctx, 'phases');
    const changes =
      input.limit === undefined
        ? await phases.history(ctx.principal.space, s.stored)
        : await phases.history(ctx.principal.space, s.stored, input.limit);
    return { phases: changes.map((c) => shown(c, s)) };
  },
});

// ---------- tool events ----------

export const toolEventRecord = defineOperation({
  name: 'tool-event-record',
  summary: 'Log one tool call of a session (tool, input, output, latency, error)',
  description:
    `Log a tool call you made in a session: the tool, its JSON input and output (at most 1 MiB each), how long it took and the error when it failed. ${SESSION_GUIDE} ` +
    'Ids are unique per space (CONFLICT when reused); the time defaults to now. Never log secrets. Returns {event}.',
  group: 'structured',
  input: toolEventRecordInput,
  output: z.object({ event: toolEventSchema }),
  write: true,
  http: {
    method: 'POST',
    path: sessionPath('tool-events'),
    body: noAgent(toolEventRecordInput),
    input: withSession,
    status: () => 201,
    successStatus: [201],
  },
  tool: { name: 'tool-event-record' },
  run: async (ctx, raw) => {
    const input = parseInput(toolEventRecordInput, 'tool-event-record', raw);
    const s = session(ctx, input);
    const event: ToolEvent = {
      id: input.id ?? newId(),
      sessionId: s.stored,
      tool: input.tool,
      input: (input.input ?? null) as JsonValue,
      output: (input.output ?? null) as JsonValue,
      latencyMs: input.latencyMs,
      error: input.error ?? null,
      at: input.at ?? now(ctx),
    };
    await port(ctx, 'toolEvents').record(ctx.principal.space, event);
    return { event: shown(event, s) };
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
    `List the logged tool calls of a session (the newest limit, default 100, oldest first), filtered by tool, time range or failed; total counts every match. ${SESSION_GUIDE} ` +
    'Useful to see which tools failed and how long they took. Returns {events, total}.',
  group: 'structured',
  input: toolEventListInput,
  output: z.object({ events: z.array(toolEventSchema), total: z.number() }),
  write: false,
  http: {
    method: 'GET',
    path: sessionPath('tool-events'),
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
  tool: { name: 'tool-event-list' },
  run: async (ctx, raw) => {
    const input = parseInput(toolEventListInput, 'tool-event-list', raw);
    const s = session(ctx, input);
    const filter = defined({
      sessionId: s.stored,
      tool: input.tool,
      since: input.since,
      until: input.until,
      failed: input.failed,
    });
    const store = port(ctx, 'toolEvents');
    const [events, total] = await Promise.all([
      store.list(ctx.principal.space, filter, input.limit ?? 100),
      store.count(ctx.principal.space, filter),
    ]);
    return { events: events.map((e) => shown(e, s)), total };
  },
});

export const stateOperations: Operation[] = [
  goalSet,
  goalGet,
  goalList,
  goalFinish,
  summarySave,
  summaryGet,
  summaryDelete,
  sessionStateSet,
  sessionStateGet,
  sessionStateDelete,
  phaseSet,
  phaseGet,
  phaseHistory,
  toolEventRecord,
  toolEventList,
];
