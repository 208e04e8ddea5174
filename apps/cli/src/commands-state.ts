/**
 * `mem goals|summaries|session-state|phases|tool-events`: the structured state of an agent loop (docs/structured.md).
 * Each command runs the server's operation in process (the same validation, permission rules and answers as HTTP and
 * MCP); the session commands act on sessions of `--agent` (default `main`).
 */
import { type JsonValue, MemError } from '@mem/core';
import { bool, type Command, type Ctx, int, need, num, str } from './command.js';
import { UsageError } from './context.js';
import { runOperation } from './operations.js';

const run = <T>(ctx: Ctx, name: string, input: Record<string, unknown>) =>
  runOperation<T>(ctx, (m) => m.stateOperations, name, input);

/** A JSON argument (`--metadata`, `--input`, a state): must parse, with a clear error naming the flag. */
function json(text: string | undefined, what: string): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new MemError('INVALID_INPUT', `${what} must be JSON (got ${JSON.stringify(text.slice(0, 60))}).`);
  }
}

async function textArg(ctx: Ctx, index: number, what: string): Promise<string> {
  const rest = ctx.args.slice(index).join(' ');
  if (rest === '-') return ctx.io.readStdin();
  if (!rest.trim()) throw new UsageError(`missing ${what}.`);
  return rest;
}

function user(ctx: Ctx): string {
  const u = str(ctx.flags, 'user');
  if (!u) throw new UsageError('--user U is required (the user the goal belongs to).');
  return u;
}

const session = (ctx: Ctx) => need(ctx, 0, 'the session id');
const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

interface GoalJson {
  id: string;
  goal: string;
  status: string;
  topic: string | null;
  updatedAt: string;
}
const goalLine = (g: GoalJson) => `${g.status.padEnd(9)} ${g.topic ? `[${g.topic}] ` : ''}${g.goal}  (${g.updatedAt})`;

const userFlags = { user: { type: 'string' }, topic: { type: 'string' } } as const;

export const stateCommands: Record<string, Command> = {
  'goals set': {
    summary: "set a user's active goal (the previous one becomes replaced)",
    usage: 'mem goals set <goal|-> --user U [--topic T] [--metadata JSON]',
    flags: { ...userFlags, metadata: { type: 'string' } },
    async run(ctx) {
      const r = await run<{ goal: GoalJson; replaced: GoalJson | null }>(ctx, 'goal-set', {
        user: user(ctx),
        goal: await textArg(ctx, 0, 'the goal text'),
        topic: str(ctx.flags, 'topic'),
        metadata: json(str(ctx.flags, 'metadata'), '--metadata'),
      });
      ctx.out(r, () => `Active goal: ${r.goal.goal}${r.replaced ? `\nReplaced: ${r.replaced.goal}` : ''}`);
    },
  },
  'goals get': {
    summary: "a user's active goal (global, or of --topic)",
    usage: 'mem goals get --user U [--topic T]',
    flags: userFlags,
    async run(ctx) {
      const r = await run<{ goal: GoalJson | null }>(ctx, 'goal-get', {
        user: user(ctx),
        topic: str(ctx.flags, 'topic'),
      });
      ctx.out(r, () => (r.goal ? r.goal.goal : 'No active goal.'));
    },
  },
  'goals list': {
    summary: "a user's goals, newest first, every status",
    usage: 'mem goals list --user U [--topic T] [--limit N]',
    flags: { ...userFlags, limit: { type: 'string' } },
    async run(ctx) {
      const r = await run<{ goals: GoalJson[] }>(ctx, 'goal-list', {
        user: user(ctx),
        topic: str(ctx.flags, 'topic'),
        limit: int(ctx.flags, 'limit'),
      });
      ctx.out(r, () => (r.goals.length === 0 ? 'No goals.' : r.goals.map(goalLine).join('\n')));
    },
  },
  'goals finish': {
    summary: "end a user's active goal as completed or abandoned",
    usage: 'mem goals finish --user U [--topic T] --status completed|abandoned',
    flags: { ...userFlags, status: { type: 'string' } },
    async run(ctx) {
      const status = str(ctx.flags, 'status');
      if (!status) throw new UsageError('--status completed|abandoned is required.');
      const r = await run<{ goal: GoalJson }>(ctx, 'goal-finish', {
        user: user(ctx),
        topic: str(ctx.flags, 'topic'),
        status,
      });
      ctx.out(r, () => `Goal ${r.goal.status}: ${r.goal.goal}`);
    },
  },
  'summaries set': {
    summary: 'save the running summary of a session (version +1)',
    usage: 'mem summaries set <session> <summary|-> --covered N [--expected-version V]',
    flags: { covered: { type: 'string' }, 'expected-version': { type: 'string' } },
    async run(ctx) {
      const covered = int(ctx.flags, 'covered');
      if (covered === undefined) throw new UsageError('--covered N is required (how many messages it covers).');
      const r = await run<{ version: number; sessionId: string }>(ctx, 'summary-save', {
        sessionId: session(ctx),
        summary: await textArg(ctx, 1, 'the summary text'),
        messagesCovered: covered,
        expectedVersion: int(ctx.flags, 'expected-version'),
      });
      ctx.out(r, () => `Saved the summary of ${r.sessionId} (version ${r.version}).`);
    },
  },
  'summaries get': {
    summary: 'the running summary of a session',
    usage: 'mem summaries get <session>',
    flags: {},
    async run(ctx) {
      const r = await run<{ summary: { summary: string; version: number; messagesCovered: number } | null }>(
        ctx,
        'summary-get',
        { sessionId: session(ctx) },
      );
      ctx.out(r, () =>
        r.summary
          ? `${r.summary.summary}\n(version ${r.summary.version}, covers ${r.summary.messagesCovered} messages)`
          : 'No summary.',
      );
    },
  },
  'summaries delete': {
    summary: 'delete the summary of a session',
    usage: 'mem summaries delete <session>',
    flags: {},
    async run(ctx) {
      const r = await run<{ deleted: true }>(ctx, 'summary-delete', { sessionId: session(ctx) });
      ctx.out(r, () => 'Deleted.');
    },
  },
  'session-state set': {
    summary: 'replace the JSON state of a session',
    usage: 'mem session-state set <session> <json|->',
    flags: {},
    async run(ctx) {
      const text = await textArg(ctx, 1, 'the state (JSON)');
      const r = await run<{ updatedAt: string }>(ctx, 'session-state-set', {
        sessionId: session(ctx),
        state: json(text, 'the state'),
      });
      ctx.out(r, () => `Saved the state at ${r.updatedAt}.`);
    },
  },
  'session-state get': {
    summary: 'the JSON state of a session',
    usage: 'mem session-state get <session>',
    flags: {},
    async run(ctx) {
      const r = await run<{ state: { state: JsonValue } | null }>(ctx, 'session-state-get', {
        sessionId: session(ctx),
      });
      ctx.out(r, () => (r.state ? JSON.stringify(r.state.state, null, 2) : 'No state.'));
    },
  },
  'session-state delete': {
    summary: 'delete the JSON state of a session',
    usage: 'mem session-state delete <session>',
    flags: {},
    async run(ctx) {
      const r = await run<{ deleted: true }>(ctx, 'session-state-delete', { sessionId: session(ctx) });
      ctx.out(r, () => 'Deleted.');
    },
  },
  'phases set': {
    summary: 'move a session into a phase (kept in its history)',
    usage: 'mem phases set <session> <phase> [--metadata JSON]',
    flags: { metadata: { type: 'string' } },
    async run(ctx) {
      const r = await run<{ phase: { phase: string; at: string } }>(ctx, 'phase-set', {
        sessionId: session(ctx),
        phase: need(ctx, 1, 'the phase'),
        metadata: json(str(ctx.flags, 'metadata'), '--metadata'),
      });
      ctx.out(r, () => `Phase ${r.phase.phase} since ${r.phase.at}.`);
    },
  },
  'phases get': {
    summary: 'the current phase of a session',
    usage: 'mem phases get <session>',
    flags: {},
    async run(ctx) {
      const r = await run<{ phase: { phase: string; at: string } | null }>(ctx, 'phase-get', {
        sessionId: session(ctx),
      });
      ctx.out(r, () => (r.phase ? `${r.phase.phase} (since ${r.phase.at})` : 'No phase.'));
    },
  },
  'phases history': {
    summary: 'the phase changes of a session, oldest first',
    usage: 'mem phases history <session> [--limit N]',
    flags: { limit: { type: 'string' } },
    async run(ctx) {
      const r = await run<{ phases: { phase: string; at: string }[] }>(ctx, 'phase-history', {
        sessionId: session(ctx),
        limit: int(ctx.flags, 'limit'),
      });
      ctx.out(r, () => (r.phases.length ? r.phases.map((p) => `${p.at}  ${p.phase}`).join('\n') : 'No phases.'));
    },
  },
  'tool-events record': {
    summary: 'log one tool call of a session',
    usage:
      'mem tool-events record <session> --tool T --latency-ms N [--input JSON] [--output JSON] [--error E] [--id I] [--at ISO]',
    flags: {
      tool: { type: 'string' },
      'latency-ms': { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      error: { type: 'string' },
      id: { type: 'string' },
      at: { type: 'string' },
    },
    async run(ctx) {
      const tool = str(ctx.flags, 'tool');
      if (!tool) throw new UsageError('--tool T is required (the tool that was called).');
      const latencyMs = num(ctx.flags, 'latency-ms');
      if (latencyMs === undefined) throw new UsageError('--latency-ms N is required (how long the call took).');
      const r = await run<{ event: { id: string; tool: string } }>(ctx, 'tool-event-record', {
        sessionId: session(ctx),
        tool,
        latencyMs,
        input: json(str(ctx.flags, 'input'), '--input'),
        output: json(str(ctx.flags, 'output'), '--output'),
        error: str(ctx.flags, 'error'),
        id: str(ctx.flags, 'id'),
        at: str(ctx.flags, 'at'),
      });
      ctx.out(r, () => `Logged ${r.event.tool} call ${r.event.id}.`);
    },
  },
  'tool-events list': {
    summary: 'the logged tool calls of a session, with their count',
    usage: 'mem tool-events list <session> [--tool T] [--since ISO] [--until ISO] [--failed true|false] [--limit N]',
    flags: {
      tool: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      failed: { type: 'string' },
      limit: { type: 'string' },
    },
    async run(ctx) {
      const r = await run<{
        events: { at: string; tool: string; latencyMs: number; error: string | null; output: JsonValue }[];
        total: number;
      }>(ctx, 'tool-event-list', {
        sessionId: session(ctx),
        tool: str(ctx.flags, 'tool'),
        since: str(ctx.flags, 'since'),
        until: str(ctx.flags, 'until'),
        failed: bool(ctx.flags, 'failed'),
        limit: int(ctx.flags, 'limit'),
      });
      ctx.out(r, () =>
        r.events.length === 0
          ? 'No tool events.'
          : `${r.events
              .map((e) => `${e.at}  ${e.tool}  ${e.latencyMs} ms  ${e.error ? `failed: ${e.error}` : show(e.output)}`)
              .join('\n')}\n(${r.total} in all)`,
      );
    },
  },
};
