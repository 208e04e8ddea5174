/** The input of distill (docs/formation.md); why and history take a memory reference (`memoryRefInput`). */
import { z } from 'zod';
import { momentSchema } from './schemas.js';

const messageSchema = z
  .object({
    id: z
      .string()
      .trim()
      .min(1, 'a message id must not be empty (leave it out to derive one)')
      .max(200, 'a message id has at most 200 characters')
      .optional()
      .describe('The message id the decision log cites as evidence; derived from the message when left out.'),
    role: z.enum(['user', 'assistant', 'system', 'tool']),
    content: z.string().max(100_000, 'a message has at most 100000 characters'),
    at: momentSchema.optional().describe('When it was said (relative dates are read against it); default: now.'),
    untrusted: z
      .boolean()
      .optional()
      .describe('Content from outside the conversation (a fetched page, a tool result): never read unless allowed.'),
  })
  .strict();

export const distillInput = z
  .object({
    messages: z
      .array(messageSchema)
      .min(1, 'give at least one message, or leave messages out to distil the transcript')
      .max(1000, 'at most 1000 messages per distillation: split them')
      .optional()
      .describe("The messages to distil; default: the agent's transcript since its last distillation."),
    since: momentSchema
      .optional()
      .describe('Distil the transcript messages from this time on (instead of since the last distillation).'),
    allowUntrusted: z
      .boolean()
      .optional()
      .describe(
        'Also read tool results and messages marked untrusted (default false: whatever lands in memory steers every later session).',
      ),
    dryRun: z.boolean().optional().describe('Decide and report, write nothing.'),
    review: z
      .boolean()
      .optional()
      .describe(
        "Keep the proposals in the review queue for approval instead of applying them (default: the stack's review setting, off unless set).",
      ),
  })
  .strict()
  .describe(
    'Form memories from a conversation: each fact the user states is added, supersedes the one it changes, closes the one it retracts, or adds evidence to the one already known. Nothing is deleted.',
  );

export type DistillInput = z.infer<typeof distillInput>;

const reviewAgent = z
  .string()
  .optional()
  .describe('The agent whose review queue this is (default: yours; a lead may name any agent of its space).');

/** Input of `distill-review`: the queue of an agent. */
export const distillReviewInput = z
  .object({ agent: reviewAgent })
  .strict()
  .describe('The proposals a review-mode distillation keeps waiting for approval, oldest first.');

/** Input of `distill-approve` and `distill-reject`: proposals of one agent's queue. */
export const distillReviewDecisionInput = z
  .object({
    ids: z
      .array(z.string().trim().min(1, 'a proposal id must not be empty').max(200))
      .min(1, 'give at least one proposal id (prop_…), as distill-review lists them')
      .max(100, 'at most 100 proposals at a time'),
    agent: reviewAgent,
  })
  .strict();
