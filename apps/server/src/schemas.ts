/**
 * Inputs of the operations that core has no schema for (they have no MCP tool of docs/ranking.md, or they are
 * HTTP-only views). Every other operation uses core's schemas directly (packages/core/src/schemas*.ts).
 */
import { scopeSchema, sourceSchema, tagSchema } from '@mem/core';
import { z } from 'zod';

/** The pre-task recall block (docs/ranking.md "Recall block"). */
export const recallInput = z
  .object({
    task: z
      .string()
      .refine((s) => s.trim().length > 0, 'task must not be empty (give the task text)')
      .max(20_000, 'task has at most 20000 characters'),
    limit: z.number().int('limit must be a whole number').min(1).max(50).optional(),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Minimum raw cosine similarity (relevance without an embedder). Default 0.4.'),
  })
  .strict();

/** Query parameters of `GET /v1/memories` (the inspector's browse list). Strings: they come from a URL. */
export const memoryListQuery = z
  .object({
    limit: z
      .string()
      .regex(/^\d+$/, 'limit must be a whole number')
      .optional()
      .describe('At most this many memories (1–500, default 100).'),
    keyPrefix: z.string().min(1).max(200).optional().describe('Only keys starting with this literal prefix.'),
    scope: scopeSchema.optional(),
    source: sourceSchema.optional(),
    tags: z.string().max(2000).optional().describe('Comma-separated tags; only memories carrying every one.'),
    agentId: z.string().min(1).max(80).optional().describe('Only memories owned by this agent.'),
  })
  .strict();

export const memoryListInput = z
  .object({
    limit: z.number().int().min(1).max(500).optional(),
    keyPrefix: z.string().min(1).max(200).optional(),
    scope: scopeSchema.optional(),
    source: sourceSchema.optional(),
    tags: z.array(tagSchema).max(32).optional(),
    agentId: z.string().min(1).max(80).optional(),
  })
  .strict();

/** Query parameters of `GET /v1/memories/{id}`. */
export const memoryGetQuery = z
  .object({
    peek: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .describe('true: read without counting an access (the inspector uses this).'),
  })
  .strict();

export const emptyInput = z.object({}).strict();

/** One line of `POST /v1/import` (and of `mem import`), as `GET /v1/export` writes it. */
export const importLine = z
  .object({
    content: z.string(),
    name: z.string().optional(),
    key: z.string().optional(),
    scope: scopeSchema.optional(),
    source: sourceSchema.optional(),
    tags: z.array(z.string()).optional(),
    createdAt: z.string().optional().describe('ISO-8601 time; kept as the memory creation time.'),
    agentId: z.string().optional().describe('Owner; a lead may import for other agents of its space.'),
  })
  .loose()
  .describe('One memory per line. Fields written by export that import does not use (id, updatedAt, …) are ignored.');

export type RecallInput = z.infer<typeof recallInput>;
export type MemoryListInput = z.infer<typeof memoryListInput>;
