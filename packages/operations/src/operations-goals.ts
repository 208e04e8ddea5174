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
  parseInput,
} from '@mem/core';
import { newId } from '@mem/core/adapter';
import { z } from 'zod';
import { defineOperation } from './operation.js';
import { defined, num, wholeQuery } from './operation-helpers.js';
import { now, port } from './operations-state-kit.js';

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
