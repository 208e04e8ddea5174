/** Facts about users (fact-set, fact-get, fact-delete): see operations-structured.ts for the rules. */
import {
  type FactSource,
  factGetInput,
  factKeySchema,
  factSetInput,
  factSourceSchema,
  type JsonValue,
  jsonValueSchema,
  MemError,
  nameSchema,
} from '@mem/core';
import { z } from 'zod';
import { type CliArgs, need, show, str, UsageError } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { defineOperation, type OpContext } from './operation.js';
import { defined } from './operation-helpers.js';

export const factDeleteInput = z
  .object({ user: nameSchema('user'), key: factKeySchema, topic: nameSchema('topic').nullable().optional() })
  .strict();

const factQuery = z
  .object({
    user: z.string().describe('The user the facts belong to.'),
    topic: z.string().optional().describe('A topic: its facts override the global ones of the same key.'),
  })
  .strict();
const factDeleteQuery = factQuery.extend({
  key: z.string().optional().describe('The fact key (or give it in the body).'),
});

const factSchema = z.object({
  user: z.string(),
  topic: z.string().nullable(),
  key: z.string(),
  value: jsonValueSchema,
  source: factSourceSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
const factUpsertResult = z.object({
  status: z
    .enum(['created', 'updated', 'kept'])
    .describe('kept: a higher-priority source holds the key; nothing written.'),
  fact: factSchema.describe('The fact as stored after the call (the winner).'),
});

const facts = (ctx: OpContext) => ctx.stack.port('facts');

// The `mem facts …` commands: --user U (required), --topic T.
export function factUser(cli: Pick<CliArgs, 'flags'>): string {
  const u = str(cli.flags, 'user');
  if (!u) throw new UsageError('--user U is required (the user the facts belong to).');
  return u;
}
/** A fact value: JSON when it parses, otherwise the text itself (so `mem facts set color blue` works). */
function jsonOrText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
type FactJson = z.infer<typeof factSchema>;

const FACTS_GUIDE =
  'Facts are small key/value truths about a user (preferences, settings, names), one value per key: set the key again to change it rather than inventing a new key. ' +
  'A topic (e.g. a project) holds facts that override the global ones of the same key. Priority of sources: user > ai_inferred > mcp > other — ' +
  'a lower-priority write never overwrites a higher one (status "kept"). Use source "user" only for what the user said or confirmed, "ai_inferred" for your own conclusions. Never store secrets.';

export const factSet = defineOperation({
  name: 'fact-set',
  summary: 'Set a fact about a user (priority-aware upsert)',
  description: `${FACTS_GUIDE} Source defaults to "user". Returns {status: created|updated|kept, fact} — when kept, fact is the higher-priority value that stays.`,
  group: 'structured',
  input: factSetInput,
  output: factUpsertResult,
  write: true,
  http: { method: 'PUT', path: '/v1/facts' },
  tool: true,
  cli: {
    command: 'facts set',
    summary: 'set a fact about a user (a lower-priority source never overwrites a higher one)',
    usage: 'mem facts set <key> <json-value> --user U [--topic T] [--source user|ai_inferred|mcp|other]',
    input: (cli) =>
      defined({
        user: factUser(cli),
        key: need(cli, 0, 'the fact key'),
        value: jsonOrText(need(cli, 1, 'the value (JSON, or plain text)')),
        topic: str(cli.flags, 'topic'),
        source: str(cli.flags, 'source') ?? 'user',
      }),
    print: (r: z.infer<typeof factUpsertResult>) =>
      r.status === 'kept'
        ? `Kept: "${r.fact.key}" is held by a higher-priority source (${r.fact.source}): ${show(r.fact.value)}`
        : `${r.status === 'created' ? 'Set' : 'Updated'} ${r.fact.key} = ${show(r.fact.value)}`,
  },
  handle: async (ctx, input) => {
    return facts(ctx).upsert(ctx.principal.space, {
      user: input.user,
      key: input.key,
      value: input.value as JsonValue,
      topic: input.topic ?? null,
      source: (input.source ?? 'user') as FactSource,
      at: ctx.stack.clock.now().toISOString(),
    });
  },
});

export const factGet = defineOperation({
  name: 'fact-get',
  summary: "A user's facts (topic facts override global ones)",
  description: `Read what is known about a user before personalising an answer. ${FACTS_GUIDE} Returns {facts: [{key, value, source, topic, …}]}; with a topic, its facts replace global facts of the same key.`,
  group: 'structured',
  input: factGetInput,
  output: z.object({ facts: z.array(factSchema) }),
  write: false,
  http: {
    method: 'GET',
    path: '/v1/facts',
    query: factQuery,
    input: ({ query }) => query,
  },
  tool: true,
  cli: {
    command: 'facts list',
    summary: "a user's facts with their source and topic",
    usage: 'mem facts list --user U [--topic T]',
    input: (cli) => defined({ user: factUser(cli), topic: str(cli.flags, 'topic') }),
    print: (r: { facts: FactJson[] }) =>
      linesOr(
        r.facts,
        'No facts.',
        (f) => `${f.key} = ${show(f.value)}  [${f.source}${f.topic ? `, topic ${f.topic}` : ''}, ${f.updatedAt}]`,
      ),
  },
  handle: async (ctx, input) => {
    return { facts: await facts(ctx).get(ctx.principal.space, input.user, input.topic ?? null) };
  },
});

export const factDelete = defineOperation({
  name: 'fact-delete',
  summary: 'Delete one fact',
  description:
    'Delete a fact that is wrong or no longer true (of the topic when given, else the global one). To change a value, call fact-set instead. 404 when there is no such fact.',
  group: 'structured',
  input: factDeleteInput,
  output: z.object({ deleted: z.literal(true) }),
  write: true,
  http: {
    method: 'DELETE',
    path: '/v1/facts',
    body: factDeleteInput.partial(),
    query: factDeleteQuery.partial(),
    input: ({ query, body }) => ({ ...query, ...(body as object | undefined) }),
  },
  tool: true,
  cli: {
    command: 'facts delete',
    usage: 'mem facts delete <key> --user U [--topic T]',
    input: (cli) => {
      const key = need(cli, 0, 'the fact key');
      return defined({ user: factUser(cli), key, topic: str(cli.flags, 'topic') });
    },
    print: (_r: unknown, input: { key: string }) => `Deleted ${input.key}.`,
  },
  handle: async (ctx, input) => {
    const topic = input.topic ?? null;
    const deleted = await facts(ctx).delete(ctx.principal.space, input.user, input.key, topic);
    if (!deleted)
      throw new MemError(
        'NOT_FOUND',
        `No fact "${input.key}" for user "${input.user}"${topic ? ` in topic ${topic}` : ''}.`,
      );
    return { deleted: true };
  },
});
