/** Procedures, what worked (procedure-store, -suggest, -outcome, -get): see operations-structured.ts for the rules. */
import {
  jsonObjectSchema,
  parseInput,
  procedureInput,
  procedureOutcomeInput,
  procedureSuggestInput,
  refSchema,
} from '@mem/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from './operation.js';
import { ranks, withId } from './operation-helpers.js';
import { tokenUsage } from './schemas.js';
import { stackServices } from './stack-services.js';

export const procedureGetInput = z.object({ id: refSchema }).strict();

const procedureSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  trigger: z.string(),
  steps: z.array(z.object({ toolName: z.string(), argsTemplate: jsonObjectSchema, expectedOutcome: z.string() })),
  successCount: z.number(),
  failureCount: z.number(),
  tags: z.array(z.string()),
  metadata: jsonObjectSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});

const procedural = (ctx: OpContext) => stackServices(ctx.stack).procedural();

export const procedureStore = defineOperation({
  name: 'procedure-store',
  summary: 'Store a procedure (a sequence of tool steps that worked)',
  description:
    'Save a way of doing something that worked, so it can be suggested again: a searchable name, a description, the trigger (the situation or request it answers), ' +
    'and the steps (toolName, argsTemplate with {{placeholders}}, expectedOutcome). After using a procedure, record the outcome (procedure-outcome) so good procedures rise and bad ones sink. Never put secrets in argument templates.',
  group: 'structured',
  input: procedureInput,
  output: procedureSchema.extend({
    usage: tokenUsage.describe('Tokens the embedder spent on the procedure text.'),
  }),
  write: true,
  http: { method: 'POST', path: '/v1/procedures', status: () => 201, successStatus: [201] },
  tool: { name: 'procedure-store' },
  run: async (ctx, raw) => {
    const { procedure, usage } = await procedural(ctx).storeReport(
      ctx.principal.space,
      parseInput(procedureInput, 'procedure-store', raw) as never,
    );
    return { ...procedure, usage };
  },
});

export const procedureSuggest = defineOperation({
  name: 'procedure-suggest',
  summary: 'Suggest procedures for a situation (relevance × success rate)',
  description:
    'Before a multi-step task, ask for procedures that fit it: describe the situation. Results are ranked by relevance combined with the success rate of recorded outcomes; ' +
    'returns {results: [{procedure, score, successRate, relevance, …}]}. Adapt the steps to the case at hand, then record the outcome with procedure-outcome.',
  group: 'structured',
  input: procedureSuggestInput,
  output: z.object({
    results: z.array(
      z.object({
        procedure: procedureSchema,
        successRate: z.number(),
        relevance: z.number(),
        score: z.number(),
        ...ranks,
      }),
    ),
    usage: tokenUsage.describe('Tokens the embedder spent on the query.'),
  }),
  write: false,
  http: { method: 'POST', path: '/v1/procedures/suggest' },
  tool: { name: 'procedure-suggest' },
  run: async (ctx, raw) => {
    const input = parseInput(procedureSuggestInput, 'procedure-suggest', raw);
    return procedural(ctx).suggestReport(ctx.principal.space, input.query, input.topK);
  },
});

export const procedureOutcome = defineOperation({
  name: 'procedure-outcome',
  summary: 'Record one use of a procedure (success or failure)',
  description:
    'After following a procedure, record whether it worked. Counts are atomic; the success rate they give ranks procedure-suggest, so recording outcomes honestly makes good procedures rise. Returns the procedure.',
  group: 'structured',
  input: procedureOutcomeInput,
  output: procedureSchema,
  write: true,
  http: {
    method: 'POST',
    path: '/v1/procedures/{id}/outcomes',
    body: procedureOutcomeInput.omit({ id: true }),
    input: withId,
  },
  tool: { name: 'procedure-outcome' },
  run: async (ctx, raw) => {
    const input = parseInput(procedureOutcomeInput, 'procedure-outcome', raw);
    return procedural(ctx).recordOutcome(ctx.principal.space, input.id, input.success);
  },
});

export const procedureGet = defineOperation({
  name: 'procedure-get',
  summary: 'One procedure with its steps',
  description: 'Read one procedure with its steps and track record, by id.',
  group: 'structured',
  input: procedureGetInput,
  output: procedureSchema,
  write: false,
  http: { method: 'GET', path: '/v1/procedures/{id}', input: ({ params }) => ({ id: params.id }) },
  tool: { name: 'procedure-get' },
  run: async (ctx, raw) => {
    const input = parseInput(procedureGetInput, 'procedure-get', raw);
    return procedural(ctx).get(ctx.principal.space, input.id);
  },
});
