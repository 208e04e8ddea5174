/**
 * Input of `forget` (docs/safety.md) for the server, the CLI and MCP: exactly one of `agentId`, `userId` or
 * `messages`. An object (not a union) so that OpenAPI and MCP tool definitions can be derived from it.
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
    messages: z
      .array(
        z.string().trim().min(1, 'a message id must not be empty').max(200, 'a message id has at most 200 characters'),
      )
      .min(1, 'give at least one message id, e.g. {"messages": ["msg_3f2a"]}')
      .max(1000, 'at most 1000 message ids per forget: split them')
      .optional()
      .describe(
        'Forget messages (1 to 1000 ids, as the decision log cites them): every formed memory whose evidence lies entirely within these messages, with its decision log. Memories that other messages also support stay; the transcript messages themselves are not deleted.',
      ),
  })
  .strict()
  .superRefine((value, ctx) => {
    const given = [value.agentId, value.userId, value.messages].filter((v) => v !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          'give exactly one of agentId, userId or messages, e.g. {"agentId": "researcher-1"} or {"messages": ["msg_3f2a"]}',
      });
    }
  })
  .describe(
    'Delete everything of one agent or one user in the space, or the memories formed only from some messages, and report what was removed. Lead only.',
  );

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
