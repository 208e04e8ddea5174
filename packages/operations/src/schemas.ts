/**
 * Inputs of the operations that core has no schema for (they have no MCP tool of docs/ranking.md, or they are
 * HTTP-only views). Every other operation uses core's schemas directly (packages/core/src/schemas*.ts).
 */
import { scopeSchema, searchResultJson, sourceSchema, tagSchema } from '@mem/core';
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
      .describe(
        'Minimum match confidence in [0, 1] (the task words a memory holds combined with the calibrated similarity). Default 0.6.',
      ),
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

/** One graph line of export / import (docs/graph.md#export-and-import): a record with every field but its space. */
export const graphLine = z
  .object({
    type: z
      .enum(['graph-entity', 'graph-observation', 'graph-relation', 'graph-log'])
      .describe('What the line holds: an entity, an observation, a relation or a line of the decision log.'),
    id: z.string().describe('The record’s id, kept by import.'),
  })
  .loose()
  .describe(
    'One graph record per line, after the memory lines: entities (name, entityType, aliases, keys, searchText, scope, agentId, userId, mergedInto, times, evidence), observations (entityId, text, agentId, times, evidence), relations (fromId, relationType, toId, owner, times, evidence), log lines (recordId, kind, decision, at, by, agentId, evidence, detail).',
  );

/** What an import wrote of the graph. */
export const graphImportCounts = z
  .object({
    entities: z.number().int(),
    observations: z.number().int(),
    relations: z.number().int(),
    log: z.number().int(),
    duplicates: z.number().int().describe('Graph records whose id the space held already: left as they were.'),
  })
  .describe('Graph records imported (zero for a file of memories only).');

export type RecallInput = z.infer<typeof recallInput>;
export type MemoryListInput = z.infer<typeof memoryListInput>;

// ---------- results (OpenAPI responses and MCP output schemas) ----------

const isoTime = z.string().describe('ISO-8601 time.');

/** Tokens a model call spent (an embedder over an API, a summariser, a fact extractor); all zero when none. */
export const tokenUsage = z
  .object({ inputTokens: z.number().int(), outputTokens: z.number().int(), totalTokens: z.number().int() })
  .describe('Model tokens spent (zero when nothing was spent, e.g. with the local embedder).');

/** A model call a runner operation made and what it spent. */
export const spentTokens = z.object({
  operation: z.enum(['compaction', 'session-summary', 'recall-embedding', 'memory-embedding', 'distillation']),
  by: z.string().describe('The summariser or embedder id.'),
  usage: tokenUsage,
});

/** memory-store, inject-learning. */
export const storeResult = z.object({
  id: z.string().describe('The memory (document) id.'),
  ids: z.array(z.string()).describe('The ids of its chunks, in order.'),
  key: z.string(),
  name: z.string(),
  chunkCount: z.number().int(),
  deduplicated: z.boolean().describe('True when the same content already existed (nothing new was written).'),
  usage: tokenUsage.describe(
    'Tokens the embedder spent on this memory (zero when deduplicated or with a local embedder).',
  ),
});

/** memory-index. */
export const indexResult = storeResult.extend({ status: z.enum(['created', 'updated', 'unchanged']) });

/** What formation compares about a memory formed from a conversation (docs/formation.md). */
export const memoryClaimResult = z
  .object({
    kind: z.string(),
    subject: z.string(),
    attribute: z.string(),
    single: z.boolean(),
    value: z.string(),
    stance: z.enum(['for', 'against']),
  })
  .nullable()
  .describe('What formation compares (null for a memory written on purpose).');

/** A memory's world and system time and its supersede links, as search results carry them, plus when it was closed. */
export const memoryValidityResult = searchResultJson
  .pick({ validFrom: true, validTo: true, supersedes: true, supersededBy: true, userId: true })
  .extend({ invalidatedAt: isoTime.nullable().describe('System time it was closed, or null.') });

/** memory-get: the whole memory, all chunks joined. */
export const memoryDocumentResult = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  content: z.string().describe('The whole memory (all chunks joined).'),
  scope: scopeSchema,
  source: sourceSchema,
  tags: z.array(z.string()),
  agentId: z.string().describe('The owning agent.'),
  chunkCount: z.number().int(),
  chunks: z.array(z.object({ id: z.string(), chunkIndex: z.number().int(), content: z.string() })),
  createdAt: isoTime,
  updatedAt: isoTime,
  expiresAt: isoTime.nullable(),
  accessCount: z.number().int(),
  lastAccessedAt: isoTime.nullable(),
  alpha: z.number(),
  beta: z.number(),
  usefulness: z.number(),
  version: z.number().int(),
  embeddingModel: z.string().nullable(),
  ...memoryValidityResult.shape,
  claim: memoryClaimResult,
});

/** memory-edit. */
export const editResult = z.object({
  id: z.string(),
  key: z.string(),
  version: z.number().int(),
  chunkCount: z.number().int(),
  action: z.enum(['replaced', 'moved', 'replaced-and-moved']),
  usage: tokenUsage.describe('Tokens the embedder spent on the new content (zero for a move).'),
});

/** memory-delete. */
export const deleteResult = z.object({ id: z.string(), deletedChunks: z.number().int() });

/** memory_rate. */
export const rateResult = z.object({
  id: z.string(),
  alpha: z.number(),
  beta: z.number(),
  usefulness: z.number(),
  counted: z
    .boolean()
    .describe("false when you rated your own memory: recorded, but it does not change the memory's usefulness"),
  replaced: z
    .number()
    .int()
    .describe(
      'your earlier counted votes on this memory that this one replaced (one vote per rater counts, the latest)',
    ),
  note: z.string().optional(),
});

/** memory-dedup-check. */
export const dedupResult = z.object({
  isDuplicate: z.boolean(),
  topSimilarity: z.number(),
  duplicates: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      similarity: z.number(),
      scope: scopeSchema,
      source: sourceSchema,
      preview: z.string(),
    }),
  ),
  usage: tokenUsage.describe('Tokens the embedder spent on the text.'),
});

/** write_memory. */
export const notebookWriteResult = z.object({
  file: z.string(),
  version: z.string().describe('The new version (pass it as expectedVersion).'),
  status: z.enum(['created', 'appended', 'updated']),
  size: z.number().int().describe('Size in bytes (UTF-8).'),
});

/** read_memory. */
export const notebookReadResult = z.object({
  file: z.string(),
  content: z.string().describe('The text from offset, cut with a marker when long.'),
  version: z.string().nullable().describe('Null when the file does not exist yet (only MEMORY.md reads as empty).'),
  size: z.number().int(),
  totalChars: z.number().int(),
  offset: z.number().int(),
  truncated: z.boolean(),
});

/** delete_memory. */
export const notebookDeleteResult = z.object({ file: z.string(), deleted: z.literal(true) });

/** list_memory. */
export const notebookListResult = z.object({
  files: z.array(z.object({ file: z.string(), size: z.number().int(), updatedAt: isoTime })),
  totalBytes: z.number().int(),
});
