/** Consolidation of episodes into facts, and forgetting (consolidate, forget): see operations-structured.ts. */
import { forget, forgetInput, jsonValueSchema, permissions } from '@mem/core';
import { z } from 'zod';
import { int, show, str, UsageError } from './cli-binding.js';
import { defineOperation } from './operation.js';
import { defined, whole } from './operation-helpers.js';
import { tokenUsage } from './schemas.js';

export const consolidateInput = z
  .object({
    minEpisodes: whole('minEpisodes', 10_000)
      .optional()
      .describe('Skip the run when fewer recent episodes exist (default 10).'),
    maxEpisodes: whole('maxEpisodes', 10_000).optional().describe('Read at most this many recent episodes.'),
  })
  .strict();

const consolidationReport = z.object({
  newFacts: z.number(),
  updatedFacts: z.number(),
  knownFacts: z.number(),
  keptFacts: z.number(),
  refusedFacts: z.number(),
  episodesProcessed: z.number(),
  clustersFound: z.number(),
  extractor: z.string(),
  fallbackReason: z.string().nullable(),
  skipped: z.object({ reason: z.literal('too-few-episodes'), episodes: z.number(), minimum: z.number() }).nullable(),
  facts: z.array(
    z.object({
      key: z.string(),
      topic: z.string().nullable(),
      value: jsonValueSchema,
      status: z.enum(['created', 'updated', 'known', 'kept', 'refused']),
      evidence: z.array(z.string()),
      reason: z.string().optional(),
    }),
  ),
  usage: tokenUsage.describe('Tokens the fact extraction spent (zero for the keyword extractor).'),
});

export const consolidate = defineOperation({
  name: 'consolidate',
  summary: 'Turn recent episodes into durable facts (lead only)',
  description:
    "Read the space's recent episodes, cluster them by tag and store the facts they support (e.g. which tools succeed for a kind of task). " +
    'Facts already known are not written again, and facts a user set are never overwritten. Skipped when there are fewer than minEpisodes episodes. Lead only. Returns the report.',
  group: 'structured',
  input: consolidateInput,
  output: consolidationReport,
  write: true,
  permission: permissions.consolidate,
  http: { method: 'POST', path: '/v1/consolidate' },
  tool: true,
  cli: {
    command: 'consolidate',
    usage: 'mem consolidate [--min N] [--max N] [--role lead]',
    input: ({ flags }) => defined({ minEpisodes: int(flags, 'min'), maxEpisodes: int(flags, 'max') }),
    print: (r: z.infer<typeof consolidationReport>) =>
      r.skipped
        ? `Skipped: ${r.skipped.episodes} episodes, at least ${r.skipped.minimum} needed.`
        : [
            `${r.newFacts} new facts, ${r.updatedFacts} updated, ${r.knownFacts} already known, from ${r.episodesProcessed} episodes in ${r.clustersFound} clusters.`,
            ...r.facts
              .filter((f) => f.status === 'created' || f.status === 'updated')
              .map((f) => `  ${f.status === 'created' ? '+' : '~'} ${f.key} = ${show(f.value)}`),
          ].join('\n'),
  },
  handle: async (ctx, input) => {
    return ctx.stack.service('consolidation').run(ctx.principal.space, defined(input));
  },
});

const forgetReport = z.object({
  space: z.string(),
  subject: z.union([
    z.object({ agentId: z.string() }),
    z.object({ userId: z.string() }),
    z.object({ messages: z.array(z.string()) }),
  ]),
  removed: z.object({
    memories: z.object({ documents: z.number(), chunks: z.number(), versions: z.number(), ratings: z.number() }),
    transcripts: z.number(),
    archives: z.number(),
    notebookFiles: z.number(),
    facts: z.number(),
    goals: z.number(),
    episodes: z.number(),
    users: z.number(),
    sessions: z.object({
      summaries: z.number(),
      states: z.number(),
      phases: z.number(),
      toolEvents: z.number(),
    }),
    proposals: z.number().describe('Proposals taken from review queues.'),
    graph: z
      .object({ entities: z.number(), observations: z.number(), relations: z.number(), log: z.number() })
      .describe(
        'Memory-graph records of the agent or about the user, with the relations touching them and their log lines.',
      ),
  }),
  skipped: z.array(z.string()),
  notes: z.array(z.string()),
});

export const forgetOperation = defineOperation({
  name: 'forget',
  summary: 'Delete everything of an agent or a user, or what was formed only from some messages (lead only)',
  description:
    "Removes, in the caller's space, every memory an agent owns (with versions and ratings), its transcript and archives, its notebooks, the episodes it wrote, and the summaries, session states, phases and tool events of its sessions with its context settings and open tasks — or, for a user, its facts, goals, user record and notebooks — " +
    'or, for messages (ids as the decision log cites them), every formed memory whose evidence lies entirely within them, with its decision log; memories other messages also support stay, and the messages themselves are not deleted. ' +
    'Give exactly one of agentId, userId and messages. Lead only; cannot be undone. Returns what was removed.',
  group: 'structured',
  input: forgetInput,
  output: forgetReport,
  write: true,
  permission: permissions.forget,
  http: { method: 'POST', path: '/v1/forget' },
  tool: true,
  cli: {
    command: 'forget',
    summary:
      'delete everything of an agent (memories, transcripts, archives, notebooks, episodes, session summaries, states, phases, tool events) or a user (facts, goals, notebooks), or the memories formed only from some messages; lead only',
    usage:
      'mem forget --agent A | --user U | --message ID [--message ID]... [--role lead] (the acting agent comes from MEM_AGENT)',
    flags: { message: { type: 'string', multiple: true } },
    ownsFlags: ['agent'],
    input: ({ flags }) => {
      const agentId = str(flags, 'agent');
      const userId = str(flags, 'user');
      const messages = flags.message as string[] | undefined;
      if ([agentId, userId, messages].filter((v) => v !== undefined).length !== 1)
        throw new UsageError('give exactly one of --agent A, --user U and --message ID (repeated, once per id).');
      return agentId !== undefined ? { agentId } : userId !== undefined ? { userId } : { messages };
    },
    print: (r: z.infer<typeof forgetReport>) => {
      const m = r.removed.memories;
      const memories = `  memories ${m.documents} (${m.chunks} chunks, ${m.versions} versions, ${m.ratings} ratings)`;
      if ('messages' in r.subject)
        return [
          `Forgot what rests only on ${r.subject.messages.length} message(s) in space ${r.space}:`,
          memories,
          ...r.notes.map((n) => `  note: ${n}`),
        ].join('\n');
      const agent = 'agentId' in r.subject ? r.subject.agentId : undefined;
      return [
        `Forgot ${agent !== undefined ? `agent ${agent}` : `user ${(r.subject as { userId: string }).userId}`} in space ${r.space}:`,
        memories,
        `  transcripts ${r.removed.transcripts}, archives ${r.removed.archives}, notebook files ${r.removed.notebookFiles}`,
        `  episodes ${r.removed.episodes}, facts ${r.removed.facts}, goals ${r.removed.goals}, users ${r.removed.users}`,
        ...(agent !== undefined
          ? [
              `  sessions: summaries ${r.removed.sessions.summaries}, states ${r.removed.sessions.states}, phases ${r.removed.sessions.phases}, tool events ${r.removed.sessions.toolEvents}`,
            ]
          : []),
        ...r.notes.map((n) => `  note: ${n}`),
      ].join('\n');
    },
  },
  handle: async (ctx, input) => {
    const report = await forget(ctx.stack, ctx.principal, input);
    // The runners of a forgotten agent keep its open tasks' text in memory: they go too.
    if ('agentId' in report.subject) ctx.stack.release(report.space, report.subject.agentId);
    return report;
  },
});
