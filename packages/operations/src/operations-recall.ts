/** Recall for a task (recall, smart-recall, task-context-gathering), teaching (inject-learning) and indexing documents. */
import {
  injectLearningInput,
  memoryIndexInput,
  permissions,
  recalledMemoryJson,
  type SearchResultJson,
  smartRecallInput,
  smartRecallResultJson,
  taskContextInput,
  toRecalledJson,
  toSmartRecallJson,
} from '@mem/core';
import { z } from 'zod';
import { int, num, required, str, text, UsageError } from './cli-binding.js';
import { renderResults } from './cli-print.js';
import { defineOperation } from './operation.js';
import { createdUnlessDeduplicated, defined } from './operation-helpers.js';
import { indexResult, recallInput, storeResult, tokenUsage } from './schemas.js';

export const recall = defineOperation({
  name: 'recall',
  summary: 'The "Relevant Past Knowledge" block for a task',
  description:
    'Search with the task text and return the Markdown block to put into the task message: the memories whose match confidence passes the threshold (default 0.6), or block null when none does.',
  group: 'knowledge',
  input: recallInput,
  output: z.object({
    block: z.string().nullable(),
    memories: z.array(recalledMemoryJson),
    usage: tokenUsage.describe(
      'Tokens the embedder spent on the task text (and, once per stack, on the calibration pairs).',
    ),
  }),
  write: false,
  http: { method: 'POST', path: '/v1/recall' },
  cli: {
    command: 'recall',
    summary: 'the Relevant Past Knowledge block for a task',
    usage: 'mem recall <task> [--limit N] [--threshold X]',
    input: (cli) =>
      defined({
        task: text(cli, 'the task text'),
        limit: int(cli.flags, 'limit'),
        threshold: num(cli.flags, 'threshold'),
      }),
    print: (r: { block: string | null }) => r.block ?? 'No relevant past knowledge.',
  },
  handle: async ({ principal, stack }, input) => {
    const r = await stack.knowledge.recall(principal, input.task, {
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.threshold !== undefined ? { threshold: input.threshold } : {}),
    });
    return { block: r.block, memories: r.memories.map(toRecalledJson), usage: r.usage };
  },
});

export const smartRecall = defineOperation({
  name: 'smart-recall',
  summary: 'Several queries, merged by id',
  description:
    'Search with several phrasings at once (the task, its key entities, likely error messages, synonyms) and get one merged list; memories found by several queries rank higher. Returns up to 2 × limit results.',
  group: 'knowledge',
  input: smartRecallInput,
  output: z.object({
    results: z.array(smartRecallResultJson),
    usage: tokenUsage.describe('Tokens the embedder spent on the queries.'),
  }),
  write: false,
  http: { method: 'POST', path: '/v1/smart-recall' },
  tool: true,
  cli: {
    command: 'smart-recall',
    summary: 'several queries, merged',
    usage: 'mem smart-recall <query>... [--limit N]',
    input: (cli) => {
      if (cli.args.length === 0) throw new UsageError('give at least one query.');
      return defined({ queries: cli.args, limit: int(cli.flags, 'limit') });
    },
    print: (r: { results: SearchResultJson[] }) => renderResults(r.results),
  },
  run: async ({ principal, stack }, input) => {
    const { results, usage } = await stack.knowledge.smartRecallReport(principal, input);
    return { results: results.map(toSmartRecallJson), usage };
  },
});

export const taskContext = defineOperation({
  name: 'task-context-gathering',
  summary: 'The task plus a smart recall',
  description:
    'At the start of a task, give the task text (and optionally a few search queries; by default the task itself is the query) and get the memories relevant to it, merged and ranked. ' +
    'Give taskId (the id you will rate under) to have it recorded and echoed back. ' +
    'Treat them as background that may be stale: verify what matters, and afterwards rate the ones you used with memory_rate.',
  group: 'knowledge',
  input: taskContextInput,
  output: z.object({
    task: z.string(),
    taskId: z.string().nullable().describe('The taskId you gave (rate the memories you used under it), or null.'),
    memories: z.array(smartRecallResultJson),
    usage: tokenUsage.describe('Tokens the embedder spent on the queries.'),
  }),
  write: false,
  http: { method: 'POST', path: '/v1/task-context' },
  tool: true,
  cli: {
    command: 'task-context',
    usage: 'mem task-context <task> [--query Q]... [--limit N] [--task-id T]',
    flags: { query: { type: 'string', multiple: true } },
    input: (cli) =>
      defined({
        task: cli.args.join(' '),
        queries: cli.flags.query as string[] | undefined,
        limit: int(cli.flags, 'limit'),
        taskId: str(cli.flags, 'task-id'),
      }),
    print: (r: { task: string; taskId: string | null; memories: SearchResultJson[] }) =>
      `Task: ${r.task}${r.taskId ? ` (task id ${r.taskId})` : ''}\n\n${renderResults(r.memories)}`,
  },
  run: async ({ principal, stack }, input) => {
    const r = await stack.knowledge.taskContext(principal, input);
    return { task: r.task, taskId: r.taskId, memories: r.memories.map(toSmartRecallJson), usage: r.usage };
  },
});

export const injectLearning = defineOperation({
  name: 'inject-learning',
  summary: 'A lead teaches an agent a learning (swarm scope)',
  description:
    'Lead only: teach an agent a lesson (category mistake-pattern, best-practice, codebase-knowledge or preference). It is stored at swarm scope, source manual, tagged with the category and owned by the target agent. ' +
    'Write it as one actionable sentence with the context it applies to.',
  group: 'knowledge',
  input: injectLearningInput,
  output: storeResult,
  write: true,
  http: { method: 'POST', path: '/v1/learnings', status: createdUnlessDeduplicated, successStatus: [201] },
  tool: true,
  permission: permissions.injectLearning,
  cli: {
    command: 'learn',
    usage:
      'mem learn <learning> --for <agentId> --category mistake-pattern|best-practice|codebase-knowledge|preference',
    input: (cli) => {
      const agentId = required(str(cli.flags, 'for'), '--for <agentId> is required.');
      return defined({ agentId, learning: cli.args.join(' '), category: str(cli.flags, 'category') });
    },
    print: (r: { id: string; key: string }, input: { agentId: string }) =>
      `Taught ${input.agentId}: ${r.id} (${r.key})`,
  },
  run: ({ principal, stack }, input) => stack.knowledge.injectLearning(principal, input),
});

export const memoryIndex = defineOperation({
  name: 'memory-index',
  summary: 'Index a document by its source path',
  description:
    'Index a document (a README, a runbook) as a file_index memory keyed by its source path. Indexing the same path again replaces the old chunks; unchanged content is a no-op. Returns status created, updated or unchanged.',
  group: 'knowledge',
  input: memoryIndexInput,
  output: indexResult,
  write: true,
  http: {
    method: 'POST',
    path: '/v1/index',
    status: (r) => ((r as { status?: string }).status === 'created' ? 201 : 200),
    successStatus: [201],
  },
  tool: true,
  run: ({ principal, stack }, input) => stack.knowledge.index(principal, input),
});
