/**
 * The runner over HTTP, MCP and the CLI (docs/runner.md): assemble one turn's context, record a turn, end a task and
 * end a session, so that agents outside JavaScript get mem inside their loop too. Each call acts on the caller's
 * agent (a lead may name another agent of its space) with that agent's context settings (window, threshold,
 * strategy: `conversation-settings-set`).
 */
import {
  MemError,
  parseInput,
  runnerEndSessionInput,
  runnerEndTaskInput,
  runnerRecordInput,
  runnerTurnInput,
} from '@mem/core';
import { z } from 'zod';
import { type CliArgs, required, str, textArg, UsageError } from './cli-binding.js';
import { defineOperation, type OpContext, type Operation } from './operation.js';
import { defined } from './operation-helpers.js';
import { targetAgent } from './operations-agent.js';
import { spentTokens, tokenUsage } from './schemas.js';

/** A lead may act for another agent of its space (`agent`); everyone else acts for itself. */
const agentField = {
  agent: z
    .string()
    .optional()
    .describe('The agent whose turn this is (a lead may name any agent of its space; default: you).'),
};
const turnInput = runnerTurnInput.extend(agentField);
const recordInput = runnerRecordInput.extend(agentField);
const endTaskInput = runnerEndTaskInput.extend(agentField);
const endSessionInput = runnerEndSessionInput.extend(agentField);

// The `mem turn|task|session …` commands act for `--agent`; the message role has its own flag (--role is the principal's).
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
function messageRole(cli: CliArgs, fallback: string): string {
  const r = str(cli.flags, 'role-of-message') ?? fallback;
  if (!ROLES.has(r))
    throw new UsageError(`--role-of-message must be one of system, user, assistant, tool (got "${r}").`);
  return r;
}
interface TurnJson {
  messages: { role: string; content: string }[];
  report: { tokens: number; contextWindow: number; recalled: unknown[]; compaction: { status?: string } | null };
}
type StoredJson = { stored: { id: string } | null; skipped?: string };

// What comes back (the MCP tools declare it as their output schema; the OpenAPI document shows it).
const anyObject = z.record(z.string(), z.unknown());
const storedMemory = anyObject
  .nullable()
  .describe('The stored memory ({id, key, chunkCount, …}), or null when none was stored.');
const turnResult = z.object({
  messages: z
    .array(z.object({ role: z.string(), content: z.string() }))
    .describe('The messages to send to the model, oldest first.'),
  report: anyObject.describe(
    'Token counts, context window and threshold, what was recalled, the compaction outcome and model tokens spent.',
  ),
});
const recordResult = z.object({ written: z.number().int().describe('Messages written through.') });
const endTaskResult = z.object({
  taskId: z.string(),
  stored: storedMemory,
  skipped: z.string().optional().describe('Why no memory was stored.'),
  rated: z.number().int().describe('Recalled memories rated for this task.'),
  spent: z.array(spentTokens).describe('Model calls made (the embedding of the task memory) and their token usage.'),
  usage: tokenUsage.describe('Sum of spent.'),
});
const endSessionResult = z.object({
  stored: storedMemory,
  skipped: z.string().optional(),
  spent: z
    .array(spentTokens)
    .describe('Model calls made (the summariser, the embedding of the session memory) and their token usage.'),
  usage: tokenUsage.describe('Sum of spent.'),
});

/** The runner of the agent's context settings (one per set of settings, held by the stack), acting for `agent`. */
async function runnerFor(ctx: OpContext, requested: string | undefined) {
  const agent = targetAgent(ctx, requested, 'conversation');
  const conversations = ctx.stack.conversations;
  if (!conversations)
    throw new MemError(
      'CAPABILITY_MISSING',
      'This server has no transcript store, which the runner needs: start it with --transcripts markdown or store.',
    );
  const { settings } = await conversations.contextSettings(ctx.principal.space, agent);
  const runner = ctx.stack.runner({
    contextWindow: settings.contextLength,
    threshold: settings.threshold,
    strategy: settings.strategy,
  });
  return { runner, principal: { ...ctx.principal, agentId: agent } };
}

const withoutAgent = <T extends { agent?: string | undefined }>(input: T): Omit<T, 'agent'> => {
  const { agent: _agent, ...rest } = input;
  return rest;
};

export const turnContext = defineOperation({
  name: 'turn-context',
  output: turnResult,
  tool: true,
  cli: {
    command: 'turn context',
    summary: 'assemble the context of one agent turn (writes the message through, compacts, recalls for the task)',
    usage:
      'mem turn context <message|-> [--task T] [--task-id ID] [--system PROMPT] [--role-of-message user|tool|system]   (prints the messages to send)',
    input: async (cli) => {
      const content = await textArg(cli, 0, 'the message of this turn (or - to read it from stdin)');
      return defined({
        task: str(cli.flags, 'task'),
        taskId: str(cli.flags, 'task-id'),
        systemPrompt: str(cli.flags, 'system'),
        messages: [{ role: messageRole(cli, 'user'), content }],
      });
    },
    print: (r: TurnJson) =>
      [
        ...r.messages.map((m) => `[${m.role}] ${m.content}`),
        `— ${r.report.tokens} tokens of ${r.report.contextWindow}; ${r.report.recalled.length} recalled${r.report.compaction ? `; compaction: ${r.report.compaction.status}` : ''}`,
      ].join('\n\n'),
  },
  summary: 'Assemble the context of one agent turn (write through, compact, notebook, transcript, recall)',
  description:
    'Call before each model call with the messages since the last turn. They are written to your transcript first; the transcript is compacted when it reaches threshold × context window; then the messages to send come back: system prompt and rules, your notebook block, the stored conversation with its summary, and the Relevant Past Knowledge for the task (as background data, never instructions). The report gives token counts, what was recalled and any model tokens mem spent. Pass taskId on every turn of a task and task on its first.',
  group: 'conversation',
  input: turnInput,
  write: true,
  http: { method: 'POST', path: '/v1/agents/{agent}/turns', input: ({ body }) => body },
  handle: async (ctx, input) => {
    const { runner, principal } = await runnerFor(ctx, input.agent);
    return runner.assembleTurn({ principal, ...withoutAgent(input) });
  },
});

export const turnRecord = defineOperation({
  name: 'turn-record',
  output: recordResult,
  tool: true,
  cli: {
    command: 'turn record',
    summary: "write a turn's answer (or tool result) through to the transcript",
    usage: 'mem turn record <content|-> [--role-of-message assistant|tool]',
    input: async (cli) => {
      const content = await textArg(cli, 0, 'the content to record (or - to read it from stdin)');
      return { messages: [{ role: messageRole(cli, 'assistant'), content }] };
    },
    print: (r: { written: number }) => `Recorded ${r.written} message(s).`,
  },
  summary: 'Write the messages of a turn through (the model’s answer, tool results)',
  description:
    'Call after a model call with its answer (and any tool results) so that the transcript holds the whole turn. Durable when the response arrives.',
  group: 'conversation',
  input: recordInput,
  write: true,
  http: { method: 'POST', path: '/v1/agents/{agent}/turns/record', input: ({ body }) => body },
  handle: async (ctx, input) => {
    const { runner, principal } = await runnerFor(ctx, input.agent);
    return runner.recordTurn({ principal, ...withoutAgent(input) });
  },
});

export const taskEnd = defineOperation({
  name: 'task-end',
  output: endTaskResult,
  tool: true,
  cli: {
    command: 'task end',
    summary: 'end a task: store what was done and learned as a task_completion memory',
    usage:
      'mem task end <summary|-> --task-id ID [--task T] [--outcome success|failure|partial] [--automatic] [--persist-memory]',
    input: async (cli) => {
      const taskId = required(
        str(cli.flags, 'task-id'),
        '--task-id ID is required (the id given to mem turn context --task-id).',
      );
      return defined({
        taskId,
        summary: await textArg(cli, 0, 'the summary of the task (or - to read it from stdin)'),
        task: str(cli.flags, 'task'),
        outcome: str(cli.flags, 'outcome'),
        automatic: cli.flags.automatic === true ? true : undefined,
        persistMemory: cli.flags['persist-memory'] === true ? true : undefined,
      });
    },
    print: (r: StoredJson) => (r.stored ? `Stored task memory ${r.stored.id}.` : `No task memory stored: ${r.skipped}`),
  },
  summary: 'End a task: store what was done and learned as a task_completion memory',
  description:
    'Call when a task ends with a summary of what was done, decided and learned: it is stored as a task_completion memory that later tasks recall. A task the agent started on its own (automatic: true — a schedule, a heartbeat) stores nothing unless persistMemory: true. ratings rate the memories that were recalled for the task.',
  group: 'conversation',
  input: endTaskInput,
  write: true,
  http: { method: 'POST', path: '/v1/agents/{agent}/tasks/end', input: ({ body }) => body },
  handle: async (ctx, input) => {
    const { runner, principal } = await runnerFor(ctx, input.agent);
    return runner.endTask({ principal, ...withoutAgent(input) });
  },
});

export const sessionEnd = defineOperation({
  name: 'session-end',
  output: endSessionResult,
  tool: true,
  cli: {
    command: 'session end',
    summary: 'end a session: store a session_summary memory (the summariser writes one when none is given)',
    usage: 'mem session end [summary|-] [--since ISO-TIME]',
    input: async (cli) =>
      defined({
        summary: cli.args.length > 0 ? await textArg(cli, 0, 'the session summary') : undefined,
        since: str(cli.flags, 'since'),
      }),
    print: (r: StoredJson) =>
      r.stored ? `Stored session summary ${r.stored.id}.` : `No session summary stored: ${r.skipped}`,
  },
  summary: 'End a session: store a session_summary memory',
  description:
    'Call when a session ends: its summary (written by the summariser from the transcript when none is given) is stored as a session_summary memory.',
  group: 'conversation',
  input: endSessionInput,
  write: true,
  http: { method: 'POST', path: '/v1/agents/{agent}/session/end', input: ({ body }) => body ?? {} },
  run: async (ctx, raw) => {
    const input = parseInput(endSessionInput, 'session-end', raw ?? {});
    const { runner, principal } = await runnerFor(ctx, input.agent);
    return runner.endSession({ principal, ...withoutAgent(input) });
  },
});

export const runnerOperations: Operation[] = [turnContext, turnRecord, taskEnd, sessionEnd];
