/**
 * Schemas of the structured stores and of episodic / procedural memory (docs/structured.md). The guards of
 * services/structured-guards.ts and the services of @mem/episodic and @mem/procedural validate with them; the
 * CLI, server and MCP tools can reuse the same objects, so no input is described twice.
 */
import { z } from 'zod';
import { checkName } from './domain/names.js';
import { MemError } from './errors.js';
import { tagsSchema } from './schemas.js';
import type { JsonObject, JsonValue } from './types-structured.js';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A user, topic or space name: the rule of `checkName` (no `..`, slashes, NUL, leading dot; 1–80 characters). */
export function nameSchema(what: 'user' | 'topic' | 'space' | 'agent') {
  return z.string().superRefine((value, ctx) => {
    try {
      checkName(value, what);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: MemError.is(error) ? error.message : String(error) });
    }
  });
}

/** An opaque reference (session id, message id, tool name…): 1–200 characters, no control characters, no outer spaces. */
export const refSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'has at most 200 characters')
  .refine((s) => !CONTROL.test(s), 'must not contain control characters')
  .refine((s) => s.trim() === s, 'must not start or end with spaces');

/**
 * A session-id prefix (`deleteSessions`): 1–200 characters without control characters. It is matched literally, so
 * `%`, `_` and `\` are ordinary characters; spaces are kept as given.
 */
export const sessionPrefixSchema = z
  .string()
  .min(1, 'must not be empty: an empty prefix would delete every session of the space')
  .max(200, 'has at most 200 characters')
  .refine((s) => !CONTROL.test(s), 'must not contain control characters');

/** An ISO-8601 time, stored as UTC with milliseconds (`2026-01-01T00:00:00.000Z`). */
export const isoTimeSchema = z
  .string()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)),
    'must be an ISO-8601 time such as 2026-01-31T09:30:00Z',
  )
  .transform((s) => new Date(s).toISOString());

export const jsonValueSchema: z.ZodType<JsonValue> = z.json() as unknown as z.ZodType<JsonValue>;
export const jsonObjectSchema: z.ZodType<JsonObject> = z.record(
  z.string(),
  jsonValueSchema,
) as unknown as z.ZodType<JsonObject>;

const text = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} has at most ${max} characters`)
    .refine((s) => !s.includes('\u0000'), `${what} must not contain NUL bytes`);
const nonEmptyText = (max: number, what: string) =>
  text(max, what).refine((s) => s.trim().length > 0, `${what} must not be empty`);

export const messageRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export const factSourceSchema = z
  .enum(['user', 'ai_inferred', 'mcp', 'other'])
  .describe(
    'Who said so. Priority user > ai_inferred > mcp > other: a lower-priority write never overwrites a higher one.',
  );
export const episodeOutcomeSchema = z.enum(['success', 'failure', 'partial', 'unknown']);

// ---------- port records (checked by the guards) ----------

export const toolCallSchema = z.object({ id: refSchema, name: refSchema, arguments: jsonValueSchema }).strict();

export const newMessageSchema = z
  .object({
    id: refSchema,
    sessionId: refSchema,
    role: messageRoleSchema,
    content: text(1_000_000, 'content'),
    toolCalls: z.array(toolCallSchema).max(128, 'at most 128 tool calls'),
    name: refSchema.nullable(),
    metadata: jsonObjectSchema,
    createdAt: isoTimeSchema,
  })
  .strict();

export const factKeySchema = refSchema.describe(
  'The fact name, e.g. "preferred_language" or "tool.deploy.success-usage".',
);

export const factWriteSchema = z
  .object({
    user: nameSchema('user'),
    topic: nameSchema('topic').nullable(),
    key: factKeySchema,
    value: jsonValueSchema,
    source: factSourceSchema,
    at: isoTimeSchema,
  })
  .strict();

export const newGoalSchema = z
  .object({
    id: refSchema,
    user: nameSchema('user'),
    topic: nameSchema('topic').nullable(),
    goal: nonEmptyText(10_000, 'goal'),
    metadata: jsonObjectSchema,
    at: isoTimeSchema,
  })
  .strict();

export const summaryWriteSchema = z
  .object({
    sessionId: refSchema,
    summary: text(1_000_000, 'summary'),
    messagesCovered: z
      .number()
      .int('messagesCovered must be a whole number')
      .min(0, 'messagesCovered must not be negative'),
    at: isoTimeSchema,
  })
  .strict();

export const phaseChangeSchema = z
  .object({ sessionId: refSchema, phase: refSchema, metadata: jsonObjectSchema, at: isoTimeSchema })
  .strict();

export const toolEventSchema = z
  .object({
    id: refSchema,
    sessionId: refSchema.nullable(),
    tool: refSchema,
    input: jsonValueSchema,
    output: jsonValueSchema,
    latencyMs: z.number().finite().min(0, 'latencyMs must not be negative'),
    error: text(100_000, 'error').nullable(),
    at: isoTimeSchema,
  })
  .strict();

export const toolEventFilterSchema = z
  .object({
    sessionId: refSchema.optional(),
    tool: refSchema.optional(),
    since: isoTimeSchema.optional(),
    until: isoTimeSchema.optional(),
    failed: z.boolean().optional(),
  })
  .strict();

/** A list size given to a port: a whole number from 1 to 10,000 (0 allowed where `min0`). */
export const limitSchema = z
  .number()
  .int('limit must be a whole number')
  .min(1, 'limit must be at least 1')
  .max(10_000, 'limit must be at most 10000');

// ---------- operation inputs (users, CLI, server, MCP) ----------

export const factSetInput = z
  .object({
    user: nameSchema('user'),
    key: factKeySchema,
    value: jsonValueSchema,
    topic: nameSchema('topic').nullable().optional(),
    source: factSourceSchema.optional(),
  })
  .strict();

export const factGetInput = z
  .object({ user: nameSchema('user'), topic: nameSchema('topic').nullable().optional() })
  .strict();

export const episodeInput = z
  .object({
    id: refSchema.optional(),
    summary: nonEmptyText(20_000, 'summary').describe('What happened, written so it makes sense on its own later.'),
    keyDecisions: z.array(nonEmptyText(2_000, 'a key decision')).max(100, 'at most 100 key decisions').optional(),
    toolsUsed: z.array(refSchema).max(200, 'at most 200 tools').optional(),
    outcome: episodeOutcomeSchema.optional(),
    sessionId: refSchema.nullable().optional(),
    timestamp: isoTimeSchema.optional(),
    tags: tagsSchema.optional(),
    metadata: jsonObjectSchema.optional(),
  })
  .strict();

export const episodeRecallInput = z
  .object({
    query: nonEmptyText(4_000, 'query'),
    topK: z
      .number()
      .int('topK must be a whole number')
      .min(1, 'topK must be at least 1')
      .max(50, 'topK must be at most 50')
      .optional(),
  })
  .strict();

export const procedureStepSchema = z
  .object({
    toolName: refSchema,
    argsTemplate: jsonObjectSchema.optional(),
    expectedOutcome: text(2_000, 'expectedOutcome').optional(),
  })
  .strict();

export const procedureInput = z
  .object({
    id: refSchema.optional(),
    name: nonEmptyText(200, 'name'),
    description: text(5_000, 'description').optional(),
    trigger: text(2_000, 'trigger').optional(),
    steps: z.array(procedureStepSchema).min(1, 'a procedure needs at least one step').max(100, 'at most 100 steps'),
    successCount: z.number().int().min(0, 'successCount must not be negative').optional(),
    failureCount: z.number().int().min(0, 'failureCount must not be negative').optional(),
    tags: tagsSchema.optional(),
    metadata: jsonObjectSchema.optional(),
  })
  .strict();

export const procedureSuggestInput = episodeRecallInput;

export const procedureOutcomeInput = z.object({ id: refSchema, success: z.boolean() }).strict();

export type FactSetInput = z.input<typeof factSetInput>;
export type FactGetInput = z.input<typeof factGetInput>;
export type EpisodeInput = z.input<typeof episodeInput>;
export type EpisodeRecallInput = z.input<typeof episodeRecallInput>;
export type ProcedureStepInput = z.input<typeof procedureStepSchema>;
export type ProcedureInput = z.input<typeof procedureInput>;
export type ProcedureSuggestInput = z.input<typeof procedureSuggestInput>;
export type ProcedureOutcomeInput = z.input<typeof procedureOutcomeInput>;

// ---------- goals, summaries, session state, phases, tool events over the doors (HTTP, MCP, CLI) ----------

/** The agent whose session an operation acts on (default: the caller; another agent's: a lead only). */
const agentField = nameSchema('agent')
  .optional()
  .describe('The agent whose session this is (default: you). Only a lead may name another agent of its space.');
/** A session of an agent, as the doors name it (stored as `<agent>/<session>`, so agents never share a session). */
export const doorSessionSchema = refSchema
  .refine((s) => s.length <= 100, 'sessionId has at most 100 characters')
  .describe('The session id, e.g. a chat or task id. Sessions belong to an agent.');
const sessionFields = { agent: agentField, sessionId: doorSessionSchema };

export const goalSetInput = z
  .object({
    user: nameSchema('user'),
    goal: nonEmptyText(10_000, 'goal').describe('What the user wants to achieve, in one or two sentences.'),
    topic: nameSchema('topic').nullable().optional().describe('A topic (e.g. a project); omit for a global goal.'),
    metadata: jsonObjectSchema.optional(),
  })
  .strict();
export const goalGetInput = factGetInput;
export const goalListInput = z
  .object({
    user: nameSchema('user'),
    topic: nameSchema('topic').nullable().optional().describe('Only this topic (null: only global goals).'),
    limit: limitSchema.optional(),
  })
  .strict();
export const goalFinishInput = z
  .object({
    user: nameSchema('user'),
    topic: nameSchema('topic').nullable().optional(),
    status: z.enum(['completed', 'abandoned']).describe('How the active goal ended.'),
  })
  .strict();

export const sessionRefInput = z.object(sessionFields).strict();
export const summarySaveInput = z
  .object({
    ...sessionFields,
    summary: nonEmptyText(100_000, 'summary').describe('The running summary of the session so far.'),
    messagesCovered: z
      .number()
      .int('messagesCovered must be a whole number')
      .min(0, 'messagesCovered must not be negative')
      .describe('How many messages of the session the summary covers.'),
    expectedVersion: z
      .number()
      .int('expectedVersion must be a whole number')
      .min(0, 'expectedVersion must not be negative')
      .optional()
      .describe('Refuse (CONFLICT) unless the stored version is this one (0: no summary yet).'),
  })
  .strict();
export const sessionStateSetInput = z
  .object({ ...sessionFields, state: jsonValueSchema.describe('The whole state (JSON); replaces the stored one.') })
  .strict();
export const phaseSetInput = z
  .object({
    ...sessionFields,
    phase: refSchema.describe('The phase the session enters, e.g. "planning", "executing", "review".'),
    metadata: jsonObjectSchema.optional(),
  })
  .strict();
export const phaseHistoryInput = z.object({ ...sessionFields, limit: limitSchema.optional() }).strict();
export const toolEventRecordInput = z
  .object({
    ...sessionFields,
    id: refSchema.optional().describe('A unique id (default: a new one); CONFLICT when already recorded.'),
    tool: refSchema,
    input: jsonValueSchema.optional(),
    output: jsonValueSchema.optional(),
    latencyMs: z.number().finite().min(0, 'latencyMs must not be negative'),
    error: text(100_000, 'error').nullable().optional().describe('The error message when the call failed.'),
    at: isoTimeSchema.optional().describe('When the call happened (default: now).'),
  })
  .strict();
export const toolEventListInput = z
  .object({
    ...sessionFields,
    tool: refSchema.optional(),
    since: isoTimeSchema.optional(),
    until: isoTimeSchema.optional(),
    failed: z.boolean().optional().describe('Only failed (true) or only successful (false) calls.'),
    limit: limitSchema.optional().describe('The newest this many (default 100), oldest first.'),
  })
  .strict();

export type GoalSetInput = z.input<typeof goalSetInput>;
export type SummarySaveInput = z.input<typeof summarySaveInput>;
export type ToolEventRecordInput = z.input<typeof toolEventRecordInput>;
