/**
 * Input of `forget` (docs/safety.md) for the server, the CLI and MCP: exactly one of `agentId` or `userId`.
 * An object (not a union) so that OpenAPI and MCP tool definitions can be derived from it.
 */
import { z } from 'zod';
import { nameSchema } from './schemas-structured.js';

export const forgetInput = z
  .object({
    agentId: nameSchema('agent')
      .optional()
      .describe(
        'Forget an agent: its memories (with chunks, versions, ratings, embeddings and index rows), transcript, archives, notebooks and the episodes it wrote in the space.',
      ),
    userId: nameSchema('user')
      .optional()
      .describe('Forget a user: its facts, goals, user record and per-user notebooks in the space.'),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.agentId === undefined) === (value.userId === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'give exactly one of agentId or userId, e.g. {"agentId": "researcher-1"}',
      });
    }
  })
  .describe('Delete everything of one agent or one user in the space and report what was removed. Lead only.');

export type ForgetInput = z.infer<typeof forgetInput>;

/**
 * Input of `gc`: expired memories are always deleted; transcript archives are pruned by a retention policy. A field
 * left out falls back to the stack's `conversation.retention` (by default: archives are kept forever).
 */
export const gcInput = z
  .object({
    archiveMaxAgeDays: z
      .number()
      .int('archiveMaxAgeDays must be a whole number of days')
      .min(0, 'archiveMaxAgeDays must be 0 or more')
      .max(36_500, 'archiveMaxAgeDays must be at most 36500')
      .nullable()
      .optional()
      .describe('Delete transcript archives older than this many days (null: no age limit).'),
    archiveMaxCount: z
      .number()
      .int('archiveMaxCount must be a whole number')
      .min(0, 'archiveMaxCount must be 0 or more')
      .max(1_000_000, 'archiveMaxCount must be at most 1000000')
      .nullable()
      .optional()
      .describe('Keep at most this many transcript archives per agent, the newest (null: no count limit).'),
  })
  .strict()
  .describe(
    "Delete expired memories of the space (never /longterm) and prune transcript archives by retention: a lead prunes every agent's archives in the space, a worker its own.",
  );

export type GcInput = z.infer<typeof gcInput>;
