/**
 * One schema per operation (docs/ranking.md). The services validate with them; the server derives its OpenAPI
 * document and MCP tool definitions from the same objects, so no operation's input is described twice.
 */
import { z } from 'zod';
import { findHidden, hiddenProblem } from './domain/hidden-text.js';
import { MemError } from './errors.js';
import { SOURCES } from './types.js';

/**
 * For one-line labels (names, tags): no line break, tab or other control character (C0, DEL, C1), and no character
 * that renders as nothing (hidden-text.ts: zero-width and bidi controls, tag characters, stray variation selectors,
 * Hangul fillers…). A label is shown inside blocks other agents read; a line break there could forge structure, and
 * an invisible character could make two names look the same or carry a hidden message.
 */
export const isOneLineLabel = (s: string) =>
  !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s) && findHidden(s, 1).length === 0;
/**
 * The refinement message of a one-line label: names the invisible characters and where they are when those are the
 * fault, or says `otherwise`.
 */
export const labelError =
  (field: string, otherwise: string) =>
  (issue: { input?: unknown }): string => {
    const problem = typeof issue.input === 'string' ? hiddenProblem(issue.input) : undefined;
    return problem === undefined
      ? otherwise
      : `${field} must not hide text: ${problem}. Remove them (they cannot be seen in the text you typed).`;
  };
/** No lone UTF-16 surrogate: such text cannot be stored as UTF-8 without being silently changed. */
export const wellFormed = (s: string) => !/\p{Cs}/u.test(s);

export const scopeSchema = z
  .enum(['agent', 'swarm'])
  .describe('agent: only the owning agent recalls it (default); swarm: every agent of the space.');
export const sourceSchema = z
  .enum(SOURCES)
  .describe(
    'Where the memory came from; sets expiry, decay and quality. Default manual. distilled: formed from a conversation by distill (not stored by hand).',
  );
export const tagSchema = z
  .string()
  .trim()
  .min(1, 'a tag must not be empty')
  .max(64, 'a tag has at most 64 characters')
  .refine((s) => isOneLineLabel(s) && !s.includes(','), {
    error: labelError('a tag', 'a tag must not contain commas, line breaks or other control characters'),
  });
export const tagsSchema = z.array(tagSchema).max(32, 'at most 32 tags');
export const idSchema = z.string().trim().min(1, 'id must not be empty').max(200);
export const keySchema = z.string().max(400).describe('A path-like key such as /longterm/facts/billing/invoice-cycle.');

const content = z
  .string()
  .refine((s) => s.trim().length > 0, 'content must not be empty (give the text to remember)')
  .refine((s) => !s.includes('\u0000'), 'content must not contain NUL bytes')
  .refine(wellFormed, 'content must be valid Unicode (it has a lone surrogate, e.g. half of an emoji)');

export const memoryStoreInput = z
  .object({
    content: content.describe('One fact, decision or lesson, written so it makes sense on its own later.'),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .refine((s) => isOneLineLabel(s) && wellFormed(s), {
        error: labelError(
          'name',
          'name must be one line: no line breaks, tabs, control characters or characters that render as nothing (zero-width, bidi, tag characters), no lone surrogates',
        ),
      })
      .optional()
      .describe('A short searchable title (one line).'),
    key: keySchema.optional(),
    scope: scopeSchema.optional(),
    source: sourceSchema.optional(),
    tags: tagsSchema.optional(),
  })
  .strict();

/** A moment of world time: an ISO-8601 time, or a date (its start, UTC); stored as UTC with milliseconds. */
export const momentSchema = z
  .string()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}.*)?$/.test(s) && !Number.isNaN(Date.parse(s)),
    'must be an ISO-8601 date or time such as 2026-01-31 or 2026-01-31T09:30:00Z',
  )
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s).toISOString());

/** The world-time fields of a search (docs/formation.md). */
const worldTimeFields = {
  asOf: momentSchema
    .optional()
    .describe('Answer as memory stood at this time: the memories that held then (default: what is current now).'),
  history: z
    .boolean()
    .optional()
    .describe('Every memory whatever its validity, superseded and closed ones too (a change history).'),
};

export const memorySearchInput = z
  .object({
    query: z
      .string()
      .max(4000, 'query has at most 4000 characters')
      .refine((s) => s.trim().length > 0, 'query must not be empty'),
    limit: z
      .number()
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(50, 'limit must be at most 50')
      .optional(),
    keyPrefix: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Only keys starting with this literal, case-sensitive prefix.'),
    scope: scopeSchema.optional(),
    tags: tagsSchema.optional().describe('Only memories carrying every tag listed.'),
    source: sourceSchema.optional(),
    intent: z
      .string()
      .trim()
      .min(1, 'intent must not be empty (leave it out instead)')
      .max(200, 'intent has at most 200 characters')
      .refine((s) => isOneLineLabel(s) && wellFormed(s), {
        error: labelError('intent', 'intent must be one line, without control characters or lone surrogates'),
      })
      .optional()
      .describe(
        'Why you search, e.g. "dedup before store" or "context for the deploy task". Recorded and echoed back.',
      ),
    ...worldTimeFields,
  })
  .strict();

export const memoryRefInput = z.union([
  z.object({ id: idSchema }).strict(),
  z.object({ key: keySchema, scope: scopeSchema.optional() }).strict(),
]);

export const memoryEditInput = z
  .object({
    id: idSchema.optional(),
    key: keySchema.optional(),
    scope: scopeSchema.optional(),
    intent: z.string().trim().min(1, 'intent must say why the memory changes').max(500),
    mode: z.enum(['replace', 'exact']).optional(),
    content: z.string().optional(),
    oldText: z.string().min(1, 'oldText must not be empty').optional(),
    newText: z.string().optional(),
    newKey: keySchema.optional(),
  })
  .strict();

/** The task a recall or a rating belongs to (a memory counts once per task). */
export const taskIdSchema = z
  .string()
  .trim()
  .min(1, 'taskId must not be empty')
  .max(200, 'taskId has at most 200 characters')
  .refine(isOneLineLabel, 'taskId must be one line, without control characters');

export const memoryRateInput = z
  .object({
    id: idSchema,
    useful: z.boolean(),
    note: z.string().max(280, 'note has at most 280 characters').optional(),
    taskId: taskIdSchema,
  })
  .strict();

export const dedupCheckInput = z
  .object({
    text: content,
    threshold: z.number().min(0).max(1).optional(),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();

export const smartRecallInput = z
  .object({
    queries: z
      .array(
        z
          .string()
          .refine((s) => s.trim().length > 0, 'a query must not be empty')
          .max(4000),
      )
      .min(1, 'give at least one query')
      .max(20, 'at most 20 queries'),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();

export const taskContextInput = z
  .object({
    task: z
      .string()
      .refine((s) => s.trim().length > 0, 'task must not be empty')
      .max(20_000),
    queries: z.array(z.string().min(1).max(4000)).max(20).optional(),
    limit: z.number().int().min(1).max(50).optional(),
    taskId: taskIdSchema
      .optional()
      .describe(
        'The id of the task: echoed back so you rate the memories you used with memory_rate under the same taskId.',
      ),
  })
  .strict();

export const learningCategorySchema = z.enum(['mistake-pattern', 'best-practice', 'codebase-knowledge', 'preference']);

export const injectLearningInput = z
  .object({
    agentId: z.string().trim().min(1).max(80),
    learning: content,
    category: learningCategorySchema,
  })
  .strict();

export const memoryIndexInput = z
  .object({
    sourcePath: z.string().trim().min(1, 'sourcePath must not be empty').max(400),
    content,
  })
  .strict();

export type MemoryStoreInput = z.infer<typeof memoryStoreInput>;
export type MemorySearchInput = z.infer<typeof memorySearchInput>;
export type MemoryRefInput = z.infer<typeof memoryRefInput>;
export type MemoryEditInput = z.infer<typeof memoryEditInput>;
export type MemoryRateInput = z.infer<typeof memoryRateInput>;
export type DedupCheckInput = z.infer<typeof dedupCheckInput>;
export type SmartRecallInput = z.infer<typeof smartRecallInput>;
export type TaskContextInput = z.infer<typeof taskContextInput>;
export type InjectLearningInput = z.infer<typeof injectLearningInput>;
export type MemoryIndexInput = z.infer<typeof memoryIndexInput>;
export type LearningCategory = z.infer<typeof learningCategorySchema>;

/** How deeply arrays and objects may nest in an operation's input (a fact value, metadata, a template). */
export const MAX_INPUT_DEPTH = 64;

/** True when `value` nests arrays/objects more than `max` levels deep (iterative: deep input cannot overflow it). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Parse an operation's input or throw `INVALID_INPUT` listing every problem by field. */
export function parseInput<S extends z.ZodType>(schema: S, operation: string, input: unknown): z.infer<S> {
  if (nestedDeeperThan(input, MAX_INPUT_DEPTH)) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid input for ${operation}: arrays and objects nest more than ${MAX_INPUT_DEPTH} levels deep. Flatten the value.`,
      { details: { operation, problems: [`input: nested more than ${MAX_INPUT_DEPTH} levels`] } },
    );
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'input';
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    else if (issue.code === 'invalid_type')
      message = issue.expected === 'int' ? 'expected a whole number' : `expected ${issue.expected}`;
    else if (issue.code === 'invalid_union') message = 'give either {id} or {key, scope}';
    return `${field}: ${message}`;
  });
  throw new MemError('INVALID_INPUT', `Invalid input for ${operation}: ${problems.join('; ')}.`, {
    details: { operation, problems },
  });
}
