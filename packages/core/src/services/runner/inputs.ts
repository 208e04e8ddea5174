/** The runner's input schemas (shared by every door) and the checks every call makes first. */
import { z } from 'zod';
import { checkName } from '../../domain/names.js';
import { MemError } from '../../errors.js';
import { sumUsage, type TokenUsage } from '../../ports/summarizer.js';
import { transcriptRoleSchema } from '../../schemas-notebook.js';
import type { Principal } from '../../types.js';
import type { SpentTokens } from './types.js';

/** Open tasks kept per agent; the oldest go first. */
export const MAX_OPEN_TASKS = 100;

const text = (what: string, max: number) =>
  z
    .string()
    .max(max, `${what} has at most ${max} characters`)
    .refine((s) => s.trim().length > 0, `${what} must not be empty`);
const taskIdSchema = z.string().trim().min(1, 'taskId must not be empty').max(200, 'taskId has at most 200 characters');
const messageSchema = z.object({ role: transcriptRoleSchema, content: z.string() }).strict();

/** The input of `assembleTurn` without the principal (what the HTTP, MCP and CLI doors accept). */
export const runnerTurnInput = z
  .object({
    task: text('task', 20_000).optional(),
    taskId: taskIdSchema.optional(),
    systemPrompt: z.string().max(200_000).optional(),
    rules: z.array(z.string().max(4_000)).max(100).optional(),
    messages: z.array(messageSchema).max(1_000, 'at most 1000 messages per turn').optional(),
    omitNewest: z.number().int().min(0).optional(),
    tools: z
      .array(z.unknown())
      .max(1_000, 'at most 1000 tool definitions')
      .optional()
      .describe('The tool definitions the model call sends: counted toward the budget, never sent by mem.'),
  })
  .strict();

/** The input of `recordTurn` without the principal. */
export const runnerRecordInput = z.object({ messages: z.array(messageSchema).max(1_000) }).strict();

/** The input of `endTask` without the principal. */
export const runnerEndTaskInput = z
  .object({
    taskId: taskIdSchema,
    summary: text('summary', 100_000),
    task: text('task', 20_000).optional(),
    outcome: z.enum(['success', 'failure', 'partial']).optional(),
    automatic: z.boolean().optional(),
    persistMemory: z.boolean().optional(),
    tags: z.array(z.string()).max(16).optional(),
    ratings: z
      .array(z.object({ id: z.string().min(1), useful: z.boolean(), note: z.string().max(280).optional() }).strict())
      .max(100)
      .optional(),
  })
  .strict();

/** The input of `endSession` without the principal. */
export const runnerEndSessionInput = z
  .object({
    summary: text('summary', 100_000).optional(),
    since: z.iso
      .datetime({ offset: true, message: 'since must be an ISO-8601 time, e.g. 2026-05-01T09:00:00Z' })
      .optional(),
    tags: z.array(z.string()).max(16).optional(),
  })
  .strict();

export function addUsage(spent: readonly SpentTokens[]): TokenUsage {
  return sumUsage(spent.map((s) => s.usage));
}

export const spentAny = (u: TokenUsage) => u.inputTokens > 0 || u.outputTokens > 0 || u.totalTokens > 0;

function checkPrincipal(p: Principal): Principal {
  if (!p || typeof p !== 'object')
    throw new MemError('INVALID_INPUT', 'principal is required: give {space, agentId, role}.');
  checkName(p.space, 'space');
  checkName(p.agentId, 'agent');
  if (p.role !== 'lead' && p.role !== 'worker') {
    throw new MemError('INVALID_INPUT', `Invalid role "${String(p.role)}": use "lead" or "worker".`);
  }
  return p;
}

export function split<T extends { principal: Principal }>(input: T): [Principal, Omit<T, 'principal'>] {
  if (!input || typeof input !== 'object') throw new MemError('INVALID_INPUT', 'Give an object with a principal.');
  const { principal, ...rest } = input;
  return [checkPrincipal(principal), rest];
}
