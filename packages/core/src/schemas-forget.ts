/**
 * Input of `forget` (SPEC §8) for the server, the CLI and MCP: exactly one of `agentId` or `userId`.
 * An object (not a union) so that OpenAPI and MCP tool definitions can be derived from it.
 */
import { z } from 'zod';
import { nameSchema } from './schemas-structured.js';

export const forgetInput = z
  .object({
    agentId: nameSchema('agent')
      .optional()
      .describe(
        'Forget an agent: its memories (with versions and ratings), transcript, archives and notebooks in the space.',
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
