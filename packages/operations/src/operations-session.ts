/** Per session of an agent: its running summary, JSON state and phase (see operations-state.ts for the rules). */
import {
  type JsonObject,
  type JsonValue,
  jsonObjectSchema,
  jsonValueSchema,
  MemError,
  type PhaseChange,
  phaseHistoryInput,
  phaseSetInput,
  type SessionState,
  type SessionSummary,
  sessionRefInput,
  sessionStateSetInput,
  summarySaveInput,
} from '@mem/core';
import { z } from 'zod';
import { int, jsonArg, need, required, str, textArg } from './cli-binding.js';
import { defineOperation } from './operation.js';
import { defined, num, wholeQuery } from './operation-helpers.js';
import {
  deleted,
  noAgent,
  now,
  ofSession,
  port,
  SESSION_GUIDE,
  session,
  sessionPath,
  shown,
  withSession,
} from './operations-state-kit.js';

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
  tool: true,
  cli: {
    command: 'summaries set',
    usage: 'mem summaries set <session> <summary|-> --covered N [--expected-version V]',
    input: async (cli) => {
      const covered = required(int(cli.flags, 'covered'), '--covered N is required (how many messages it covers).');
      return defined({
        sessionId: need(cli, 0, 'the session id'),
        summary: await textArg(cli, 1, 'the summary text'),
        messagesCovered: covered,
        expectedVersion: int(cli.flags, 'expected-version'),
      });
    },
    print: (r: { version: number; sessionId: string }) => `Saved the summary of ${r.sessionId} (version ${r.version}).`,
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'summaries get',
    usage: 'mem summaries get <session>',
    input: (cli) => ({ sessionId: need(cli, 0, 'the session id') }),
    print: (r: { summary: { summary: string; version: number; messagesCovered: number } | null }) =>
      r.summary
        ? `${r.summary.summary}\n(version ${r.summary.version}, covers ${r.summary.messagesCovered} messages)`
        : 'No summary.',
  },
  handle: async (ctx, input) => {
    const s = session(ctx, input);
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
  tool: true,
  cli: {
    command: 'summaries delete',
    usage: 'mem summaries delete <session>',
    input: (cli) => ({ sessionId: need(cli, 0, 'the session id') }),
    print: () => 'Deleted.',
  },
  handle: async (ctx, input) => {
    const s = session(ctx, input);
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
  tool: true,
  cli: {
    command: 'session-state set',
    usage: 'mem session-state set <session> <json|->',
    input: async (cli) => {
      const text = await textArg(cli, 1, 'the state (JSON)');
      return { sessionId: need(cli, 0, 'the session id'), state: jsonArg(text, 'the state') };
    },
    print: (r: { updatedAt: string }) => `Saved the state at ${r.updatedAt}.`,
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'session-state get',
    usage: 'mem session-state get <session>',
    input: (cli) => ({ sessionId: need(cli, 0, 'the session id') }),
    print: (r: { state: { state: unknown } | null }) =>
      r.state ? JSON.stringify(r.state.state, null, 2) : 'No state.',
  },
  handle: async (ctx, input) => {
    const s = session(ctx, input);
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
  tool: true,
  cli: {
    command: 'session-state delete',
    usage: 'mem session-state delete <session>',
    input: (cli) => ({ sessionId: need(cli, 0, 'the session id') }),
    print: () => 'Deleted.',
  },
  handle: async (ctx, input) => {
    const s = session(ctx, input);
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
  tool: true,
  cli: {
    command: 'phases set',
    summary: 'move a session into a phase (kept in its history)',
    usage: 'mem phases set <session> <phase> [--metadata JSON]',
    input: (cli) =>
      defined({
        sessionId: need(cli, 0, 'the session id'),
        phase: need(cli, 1, 'the phase'),
        metadata: jsonArg(str(cli.flags, 'metadata'), '--metadata'),
      }),
    print: (r: { phase: { phase: string; at: string } }) => `Phase ${r.phase.phase} since ${r.phase.at}.`,
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'phases get',
    usage: 'mem phases get <session>',
    input: (cli) => ({ sessionId: need(cli, 0, 'the session id') }),
    print: (r: { phase: { phase: string; at: string } | null }) =>
      r.phase ? `${r.phase.phase} (since ${r.phase.at})` : 'No phase.',
  },
  handle: async (ctx, input) => {
    const s = session(ctx, input);
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
  tool: true,
  cli: {
    command: 'phases history',
    usage: 'mem phases history <session> [--limit N]',
    input: (cli) => defined({ sessionId: need(cli, 0, 'the session id'), limit: int(cli.flags, 'limit') }),
    print: (r: { phases: { phase: string; at: string }[] }) =>
      r.phases.length ? r.phases.map((p) => `${p.at}  ${p.phase}`).join('\n') : 'No phases.',
  },
  handle: async (ctx, input) => {
    const s = session(ctx, input);
    const phases = port(ctx, 'phases');
    const changes =
      input.limit === undefined
        ? await phases.history(ctx.principal.space, s.stored)
        : await phases.history(ctx.principal.space, s.stored, input.limit);
    return { phases: changes.map((c) => shown(c, s)) };
  },
});
