/**
 * Input schemas of the notebook tools (docs/notebooks.md) and of the conversation operations (docs/conversations.md). The services
 * validate with them; the server derives its OpenAPI document and MCP tool definitions from the same objects.
 */
import { z } from 'zod';
import { wellFormed } from './schemas.js';

const noNul = (s: string) => !s.includes('\u0000');

export const notebookFileSchema = z
  .string()
  .min(1, 'file must not be empty')
  .max(300, 'file has at most 300 characters')
  .describe(
    'A notebook file: MEMORY.md (default) or a path such as "people.md" or "plans/q3-roadmap.md" (".md" is added when missing; up to two folders).',
  );

export const writeMemoryInput = z
  .object({
    content: z
      .string()
      .refine(noNul, 'content must not contain NUL characters')
      .refine(wellFormed, 'content must be valid Unicode (it has a lone surrogate, e.g. half of an emoji)')
      .describe(
        'Text to append as new line(s); with oldText, the text that replaces it (empty content removes the passage).',
      ),
    file: notebookFileSchema.optional(),
    oldText: z
      .string()
      .min(1, 'oldText must not be empty (leave it out to append)')
      .optional()
      .describe('An exact passage of the file, occurring exactly once, to replace by content.'),
    expectedVersion: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('The version read_memory returned; the write is refused (CONFLICT) if the file changed since.'),
  })
  .strict();

export const readMemoryInput = z
  .object({
    file: notebookFileSchema.optional(),
    offset: z
      .number()
      .int('offset must be a whole number')
      .min(0, 'offset must be at least 0')
      .optional()
      .describe('Character offset to read from (for files cut at 65,536 characters).'),
  })
  .strict();

export const deleteMemoryInput = z.object({ file: notebookFileSchema }).strict();

export const listMemoryInput = z
  .object({
    prefix: z
      .string()
      .max(300)
      .refine(noNul, 'prefix must not contain NUL characters')
      .optional()
      .describe('Only files whose path starts with this literal prefix, e.g. "plans/".'),
  })
  .strict();

export const searchMemoryInput = z
  .object({
    query: z
      .string()
      .max(1000, 'query has at most 1000 characters')
      .refine((s) => s.trim().length > 0, 'query must not be empty'),
    limit: z.number().int().min(1, 'limit must be at least 1').max(10, 'limit must be at most 10').optional(),
  })
  .strict();

export const transcriptRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);

export const conversationAddInput = z
  .object({
    role: transcriptRoleSchema,
    content: z.string().refine((s) => s.trim().length > 0, 'content must not be empty'),
  })
  .strict();

export const conversationCompactInput = z
  .object({
    summary: z
      .string()
      .refine((s) => s.trim().length > 0, 'summary must not be empty (leave it out to let the summariser write one)')
      .optional(),
  })
  .strict();

export type WriteMemoryInput = z.infer<typeof writeMemoryInput>;
export type ReadMemoryInput = z.infer<typeof readMemoryInput>;
export type DeleteMemoryInput = z.infer<typeof deleteMemoryInput>;
export type ListMemoryInput = z.infer<typeof listMemoryInput>;
/** Per-agent context settings (docs/conversations.md): each field given replaces the stored one. */
export const contextSettingsInput = z
  .object({
    contextLength: z
      .number()
      .int('contextLength must be a whole number of tokens')
      .min(256, 'contextLength must be at least 256 tokens')
      .max(10_000_000, 'contextLength must be at most 10000000 tokens')
      .optional()
      .describe("The model's context window in tokens (default 128000)."),
    threshold: z
      .number()
      .gt(0, 'threshold must be above 0')
      .max(1, 'threshold must be at most 1 (a share of contextLength)')
      .optional()
      .describe('Compress when the history reaches threshold × contextLength tokens (default 0.9).'),
    strategy: z
      .enum(['summarize', 'sliding-window', 'drop-tool-results'], {
        error: 'strategy must be one of summarize, sliding-window, drop-tool-results',
      })
      .optional()
      .describe('How to compress: summarize (default), sliding-window or drop-tool-results.'),
  })
  .strict();

export type SearchMemoryInput = z.infer<typeof searchMemoryInput>;
export type ConversationAddInput = z.infer<typeof conversationAddInput>;
export type ConversationCompactInput = z.infer<typeof conversationCompactInput>;
export type ContextSettingsInput = z.infer<typeof contextSettingsInput>;
