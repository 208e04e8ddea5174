/**
 * Review mode of distill (docs/formation.md): the proposals a review-mode distillation keeps, listed, approved
 * (applied, each decided again against what is current then) or rejected — on every door and in the inspector.
 */
import {
  approveReview,
  distillReviewDecisionInput,
  distillReviewInput,
  listReview,
  rejectReview,
} from '@mem/core/adapter';
import { z } from 'zod';
import type { CliArgs } from './cli-binding.js';
import { UsageError } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { defineOperation, type Operation } from './operation.js';
import { defined } from './operation-helpers.js';
import { targetAgent } from './operations-agent.js';
import { distillResult } from './operations-formation.js';

const reviewItem = z.object({
  id: z.string().describe('The proposal id (prop_…): give it to distill-approve or distill-reject.'),
  queuedAt: z.string(),
  agentId: z.string().describe('The agent whose conversation it came from.'),
  userId: z.string().nullable().describe('The end user it is about (null: none).'),
  decision: z
    .enum(['add', 'update', 'invalidate', 'noop'])
    .describe('What it would do if approved now: add, update (supersede target) or invalidate (close target).'),
  target: z.string().nullable().describe('The memory it would supersede or close (null for add).'),
  text: z.string().describe('The fact as it would be kept.'),
  proposal: z
    .object({
      kind: z.string(),
      subject: z.string(),
      attribute: z.string(),
      value: z.string(),
      statement: z.string(),
      validFrom: z.string().nullable(),
      validTo: z.string().nullable(),
      evidence: z.array(z.string()).describe('Ids of the messages it rests on.'),
    })
    .passthrough(),
  said: z.array(z.object({ id: z.string(), at: z.string() })).describe('When each of those messages was said.'),
  related: z.array(z.string()).describe('The current memories it was compared with.'),
  extractor: z.object({ id: z.string(), model: z.string().nullable(), promptVersion: z.string() }),
});

const reviewList = z.object({
  agentId: z.string(),
  items: z.array(reviewItem).describe('Oldest first; a proposal about an end user only for that user.'),
});

const reviewDecision = z.object({
  ids: z.array(z.string()).describe('The proposals approved (or rejected).'),
  reports: z
    .array(distillResult.omit({ cursor: true }))
    .describe('Approve: what applying them did (decisions, failures), one per owner and extractor.'),
});

interface ItemLine {
  id: string;
  decision: string;
  target: string | null;
  text: string;
  userId: string | null;
  proposal: { evidence: string[] };
}

const idsFrom = (cli: CliArgs, command: string) => {
  if (cli.args.length === 0)
    throw new UsageError(`mem distill ${command} needs proposal ids (prop_…), as mem distill review lists them.`);
  return defined({ ids: [...cli.args], agent: typeof cli.flags.agent === 'string' ? cli.flags.agent : undefined });
};

const printDecision =
  (verb: string) =>
  (r: {
    ids: string[];
    reports: {
      decisions: { decision: string; memoryId: string; text: string }[];
      failures: { code: string; message: string }[];
    }[];
  }) =>
    [
      `${verb} ${r.ids.length} proposal${r.ids.length === 1 ? '' : 's'}.`,
      ...r.reports.flatMap((x) => [
        ...x.decisions.map((d) => `  ${d.decision} ${d.memoryId}: ${d.text}`),
        ...x.failures.map((f) => `  ! ${f.code}: ${f.message}`),
      ]),
    ].join('\n');

export const distillReview = defineOperation({
  name: 'distill-review',
  summary: 'The proposals waiting for approval (distill review mode)',
  description:
    'The proposals a review-mode distillation kept instead of applying, oldest first: what each would do if approved now (add, update or invalidate a memory), the fact, the messages it rests on, the extractor. A proposal about an end user is listed only when you act for that user. Approve with distill-approve, drop with distill-reject.',
  group: 'knowledge',
  input: distillReviewInput,
  output: reviewList,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/distill/review',
    query: distillReviewInput,
    input: ({ query }) => defined({ agent: query.agent }),
  },
  tool: true,
  cli: {
    command: 'distill review',
    usage: 'mem distill review [--agent A]',
    input: (cli) => defined({ agent: typeof cli.flags.agent === 'string' ? cli.flags.agent : undefined }),
    print: (r: { agentId: string; items: ItemLine[] }) =>
      [
        `Review queue of ${r.agentId}:`,
        linesOr(
          r.items,
          'nothing waits for approval.',
          (x) =>
            `${x.id} ${x.decision}${x.target ? ` ${x.target}` : ''}${x.userId ? ` (user ${x.userId})` : ''}: ${x.text} [${x.proposal.evidence.join(', ')}]`,
        ),
      ].join('\n'),
  },
  handle: async (ctx, input) => {
    const agentId = targetAgent(ctx, input.agent, 'review queue');
    return { agentId, items: await listReview(ctx.stack, ctx.principal, agentId) };
  },
});

export const distillApprove = defineOperation({
  name: 'distill-approve',
  summary: 'Approve proposals of the review queue: apply them',
  description:
    'Apply proposals the review queue holds, for the agent and user they came from: each is decided again against what is current now (the memory it would have superseded may have changed) and written as a distillation writes, with its decision logged (memory-why). NOT_FOUND, changing nothing, when an id does not wait in the queue.',
  group: 'knowledge',
  input: distillReviewDecisionInput,
  output: reviewDecision,
  write: true,
  http: { method: 'POST', path: '/v1/distill/review/approve' },
  tool: true,
  cli: {
    command: 'distill approve',
    usage: 'mem distill approve <prop_id…> [--agent A]',
    input: (cli) => idsFrom(cli, 'approve'),
    print: printDecision('Approved'),
  },
  handle: (ctx, input) =>
    approveReview(ctx.stack, ctx.principal, input.ids, targetAgent(ctx, input.agent, 'review queue')),
});

export const distillReject = defineOperation({
  name: 'distill-reject',
  summary: 'Reject proposals of the review queue: drop them',
  description:
    'Take proposals from the review queue without forming anything. NOT_FOUND, changing nothing, when an id does not wait in the queue.',
  group: 'knowledge',
  input: distillReviewDecisionInput,
  output: reviewDecision,
  write: true,
  http: { method: 'POST', path: '/v1/distill/review/reject' },
  tool: true,
  cli: {
    command: 'distill reject',
    usage: 'mem distill reject <prop_id…> [--agent A]',
    input: (cli) => idsFrom(cli, 'reject'),
    print: printDecision('Rejected'),
  },
  handle: (ctx, input) =>
    rejectReview(ctx.stack, ctx.principal, input.ids, targetAgent(ctx, input.agent, 'review queue')),
});

/** The review operations, after distill. */
export const reviewOperations: Operation[] = [distillReview, distillApprove, distillReject];
