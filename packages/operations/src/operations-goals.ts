/** Goals of users (goal-set, goal-get, goal-list, goal-finish): see operations-state.ts for the rules. */
import {
  type Goal,
  goalFinishInput,
  goalGetInput,
  goalListInput,
  goalSetInput,
  type JsonObject,
  jsonObjectSchema,
  MemError,
} from '@mem/core';
import { newId } from '@mem/core/adapter';
import { z } from 'zod';
import { type CliArgs, int, jsonArg, str, textArg, UsageError } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { defineOperation } from './operation.js';
import { defined, num, wholeQuery } from './operation-helpers.js';
import { now, port } from './operations-state-kit.js';

// The `mem goals …` commands: a user's goals (--user U, --topic T).
function user(cli: CliArgs): string {
  const u = str(cli.flags, 'user');
  if (!u) throw new UsageError('--user U is required (the user the goal belongs to).');
  return u;
}
interface GoalJson {
  goal: string;
  status: string;
  topic: string | null;
  updatedAt: string;
}
const goalLine = (g: GoalJson) => `${g.status.padEnd(9)} ${g.topic ? `[${g.topic}] ` : ''}${g.goal}  (${g.updatedAt})`;

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
  tool: true,
  cli: {
    command: 'goals set',
    summary: "set a user's active goal (the previous one becomes replaced)",
    usage: 'mem goals set <goal|-> --user U [--topic T] [--metadata JSON]',
    input: async (cli) =>
      defined({
        user: user(cli),
        goal: await textArg(cli, 0, 'the goal text'),
        topic: str(cli.flags, 'topic'),
        metadata: jsonArg(str(cli.flags, 'metadata'), '--metadata'),
      }),
    print: (r: { goal: GoalJson; replaced: GoalJson | null }) =>
      `Active goal: ${r.goal.goal}${r.replaced ? `\nReplaced: ${r.replaced.goal}` : ''}`,
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'goals get',
    summary: "a user's active goal (global, or of --topic)",
    usage: 'mem goals get --user U [--topic T]',
    input: (cli) => defined({ user: user(cli), topic: str(cli.flags, 'topic') }),
    print: (r: { goal: GoalJson | null }) => (r.goal ? r.goal.goal : 'No active goal.'),
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'goals list',
    summary: "a user's goals, newest first, every status",
    usage: 'mem goals list --user U [--topic T] [--limit N]',
    input: (cli) => defined({ user: user(cli), topic: str(cli.flags, 'topic'), limit: int(cli.flags, 'limit') }),
    print: (r: { goals: GoalJson[] }) => linesOr(r.goals, 'No goals.', goalLine),
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'goals finish',
    summary: "end a user's active goal as completed or abandoned",
    usage: 'mem goals finish --user U [--topic T] --status completed|abandoned',
    input: (cli) => {
      const status = str(cli.flags, 'status');
      if (!status) throw new UsageError('--status completed|abandoned is required.');
      return defined({ user: user(cli), topic: str(cli.flags, 'topic'), status });
    },
    print: (r: { goal: GoalJson }) => `Goal ${r.goal.status}: ${r.goal.goal}`,
  },
  handle: async (ctx, input) => {
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
