/** Procedures, what worked (procedure-store, -suggest, -outcome, -get): see operations-structured.ts for the rules. */
import {
  jsonObjectSchema,
  MemError,
  procedureInput,
  procedureOutcomeInput,
  procedureSuggestInput,
  refSchema,
} from '@mem/core';
import { z } from 'zod';
import { bool, int, need, text } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { defineOperation, type OpContext } from './operation.js';
import { defined, ranks, withId } from './operation-helpers.js';
import { tokenUsage } from './schemas.js';

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

const procedural = (ctx: OpContext) => ctx.stack.service('procedures');

type ProcedureJson = z.infer<typeof procedureSchema>;
function procedureLine(p: ProcedureJson): string {
  const uses = p.successCount + p.failureCount;
  return `${p.id}  ${p.name}  (${p.successCount}/${uses} succeeded)${p.tags.length ? `  #${p.tags.join(' #')}` : ''}`;
}

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
  tool: true,
  cli: {
    command: 'procedures add',
    summary:
      'store a procedure (JSON: name, description, trigger, steps[{toolName, argsTemplate, expectedOutcome}], tags)',
    usage: 'mem procedures add <procedure.json|->',
    input: async (cli) => {
      const file = need(cli, 0, 'the procedure JSON file (or -)');
      const json = file === '-' ? await cli.readStdin() : cli.readTextFile(file, 'the procedure file');
      try {
        return JSON.parse(json);
      } catch (e) {
        throw new MemError('INVALID_INPUT', `The procedure is not valid JSON (${(e as Error).message}).`);
      }
    },
    print: (p: ProcedureJson) => `Stored procedure ${p.id} (${p.name}, ${p.steps.length} steps).`,
  },
  handle: async (ctx, input) => {
    const { procedure, usage } = await procedural(ctx).storeReport(ctx.principal.space, input as never);
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
  tool: true,
  cli: {
    command: 'procedures suggest',
    summary: 'procedures for a situation, relevance combined with success rate',
    usage: 'mem procedures suggest <query> [--limit N]',
    input: (cli) => defined({ query: text(cli, 'the query'), topK: int(cli.flags, 'limit') }),
    print: (r: { results: { procedure: ProcedureJson; score: number; successRate: number }[] }) =>
      linesOr(
        r.results,
        'No procedures found.',
        (s, i) =>
          `${i + 1}. [score ${s.score.toFixed(3)} · success ${s.successRate.toFixed(2)}] ${procedureLine(s.procedure)}`,
      ),
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'procedures outcome',
    summary: 'count one use of a procedure (atomic)',
    usage: 'mem procedures outcome <id> --success true|false',
    input: (cli) => ({ id: need(cli, 0, 'the procedure id'), success: bool(cli.flags, 'success', true) }),
    print: procedureLine,
  },
  handle: async (ctx, input) => {
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
  tool: true,
  cli: {
    command: 'procedures show',
    usage: 'mem procedures show <id>',
    input: (cli) => ({ id: need(cli, 0, 'the procedure id') }),
    print: (p: ProcedureJson) =>
      [
        procedureLine(p),
        p.description,
        p.trigger ? `when: ${p.trigger}` : '',
        ...p.steps.map(
          (s, i) =>
            `  ${i + 1}. ${s.toolName} ${JSON.stringify(s.argsTemplate ?? {})}${s.expectedOutcome ? ` → ${s.expectedOutcome}` : ''}`,
        ),
      ]
        .filter(Boolean)
        .join('\n'),
  },
  handle: async (ctx, input) => {
    return procedural(ctx).get(ctx.principal.space, input.id);
  },
});
