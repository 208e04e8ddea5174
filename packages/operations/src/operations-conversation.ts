/**
 * An agent's conversation (docs/conversations.md) under `/v1/agents/{agent}/conversation…`, its context settings (also
 * MCP tools) and `mem convo …`. A worker acts on its own agent; a lead may name any agent of its space.
 */
import {
  contextSettingsInput,
  conversationAddInput,
  conversationCompactInput,
  type TranscriptMessage,
} from '@mem/core';
import { renderMessageLine } from '@mem/core/adapter';
import { z } from 'zod';
import { need, str, UsageError } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { defineOperation, type Operation } from './operation.js';
import { conversationService, targetAgent } from './operations-agent.js';
import { emptyInput } from './schemas.js';

const ROLES = ['user', 'assistant', 'system', 'tool'];
const lines = (messages: TranscriptMessage[]) => messages.map(renderMessageLine).join('\n');

const archiveInput = z
  .object({ archive: z.string().min(1).max(200).describe('An archive id such as history_2026-03-01T12-00-00.000Z.') })
  .strict();

export const conversationAgents = defineOperation({
  name: 'conversation-agents',
  summary: 'Agents of your space that have a transcript',
  description: 'The agents of the space with a stored conversation. A worker sees only itself.',
  group: 'conversation',
  input: emptyInput,
  write: false,
  http: { method: 'GET', path: '/v1/conversations', input: () => ({}) },
  cli: {
    command: 'convo agents',
    summary: 'the agents of the space with a transcript (a worker sees only itself)',
    usage: 'mem convo agents',
    input: () => ({}),
    print: (r: { agents: string[] }) => (r.agents.length === 0 ? 'No conversations.' : r.agents.join('\n')),
  },
  run: async (ctx) => {
    const agents = await conversationService(ctx).agents(ctx.principal.space);
    return { agents: ctx.principal.role === 'lead' ? agents : agents.filter((a) => a === ctx.principal.agentId) };
  },
});

export const conversationShow = defineOperation({
  name: 'conversation-show',
  summary: 'The stored transcript of an agent',
  description: 'Every message of the agent’s current transcript, oldest first, with its time.',
  group: 'conversation',
  input: emptyInput,
  write: false,
  http: { method: 'GET', path: '/v1/agents/{agent}/conversation', input: () => ({}) },
  cli: {
    command: 'convo show',
    summary: 'the stored transcript, one line per message',
    usage: 'mem convo show [--agent A]',
    input: () => ({}),
    print: (r: { messages: TranscriptMessage[] }) => (r.messages.length === 0 ? 'No messages.' : lines(r.messages)),
  },
  run: async (ctx) => {
    const agent = targetAgent(ctx);
    const conversation = await conversationService(ctx).openWithSettings({
      space: ctx.principal.space,
      agentId: agent,
    });
    return { agent, messages: await conversation.messages() };
  },
});

export const conversationAdd = defineOperation({
  name: 'conversation-add',
  summary: 'Append a message to an agent’s transcript (written through before the answer)',
  description:
    'Append one message (role system|user|assistant|tool). It is durable when the response arrives. Empty content is skipped (message null). ' +
    'Returns the message, the tokens now in the history and needsCompression (true once the history reaches threshold × contextLength: compact then).',
  group: 'conversation',
  input: conversationAddInput,
  write: true,
  http: {
    method: 'POST',
    path: '/v1/agents/{agent}/conversation/messages',
    input: ({ body }) => body,
    status: () => 201,
    successStatus: [201],
  },
  cli: {
    command: 'convo add',
    summary: "append a message to an agent's transcript (written through before it returns)",
    usage: 'mem convo add <content|-> [--agent A] --role user|assistant|system|tool',
    ownsFlags: ['role'],
    input: async (cli) => {
      const role = str(cli.flags, 'role');
      if (!role || !ROLES.includes(role))
        throw new UsageError(`--role must be one of ${ROLES.join(', ')} (the message role).`);
      const joined = cli.args.join(' ');
      const content = joined === '-' ? await cli.readStdin() : joined;
      if (!content.trim()) throw new UsageError('missing the message content.');
      return { role, content };
    },
    print: (r: { message: TranscriptMessage | null; tokens: number }) =>
      r.message
        ? `Added ${r.message.role} message at ${r.message.at} (${r.tokens} tokens in history).`
        : 'Skipped an empty message.',
  },
  handle: async (ctx, input) => {
    const agent = targetAgent(ctx);
    const conversation = await conversationService(ctx).openWithSettings({
      space: ctx.principal.space,
      agentId: agent,
    });
    const message = await conversation.add(input.role, input.content);
    return { agent, message, tokens: conversation.tokens(), needsCompression: conversation.needsCompression() };
  },
});

export const conversationCompact = defineOperation({
  name: 'conversation-compact',
  summary: 'Archive the transcript and replace it by a summary',
  description:
    'Copy the transcript to an immutable archive, then replace it by one summary message. Without a summary the configured summarizer writes one.',
  group: 'conversation',
  input: conversationCompactInput,
  write: true,
  http: { method: 'POST', path: '/v1/agents/{agent}/conversation/compact', input: ({ body }) => body ?? {} },
  cli: {
    command: 'convo compact',
    summary: 'archive the transcript and replace it by a summary (written by the summarizer when none is given)',
    usage: 'mem convo compact [--agent A] [--summary S]',
    input: (cli) => {
      const summary = str(cli.flags, 'summary');
      if (summary !== undefined && !summary.trim()) throw new UsageError('--summary must not be empty.');
      return summary === undefined ? {} : { summary };
    },
    print: (r: { status: string; archive?: { id: string }; tokensBefore?: number; tokensAfter?: number }) =>
      r.status === 'compacted'
        ? `Compacted: archived as ${r.archive?.id}; ${r.tokensBefore} → ${r.tokensAfter} tokens.`
        : `Not compacted (${r.status}).`,
  },
  handle: async (ctx, input) => {
    const agent = targetAgent(ctx);
    const conversation = await conversationService(ctx).openWithSettings({
      space: ctx.principal.space,
      agentId: agent,
    });
    return input.summary === undefined ? conversation.compress() : conversation.compact(input.summary);
  },
});

export const conversationArchives = defineOperation({
  name: 'conversation-archives',
  summary: 'The archives of an agent’s transcript (oldest first)',
  description: 'Every archive a compaction left, with its time and size.',
  group: 'conversation',
  input: emptyInput,
  write: false,
  http: { method: 'GET', path: '/v1/agents/{agent}/conversation/archives', input: () => ({}) },
  cli: {
    command: 'convo archives',
    summary: "an agent's archived transcripts (read one with mem convo archive ID)",
    usage: 'mem convo archives [--agent A]',
    input: () => ({}),
    print: (r: { archives: { id: string; archivedAt: string; size: number }[] }) =>
      linesOr(r.archives, 'No archives.', (a) => `${a.id}  ${a.archivedAt}  ${a.size} bytes`),
  },
  run: async (ctx) => ({
    archives: await conversationService(ctx).archives(ctx.principal.space, targetAgent(ctx)),
  }),
});

export const conversationArchive = defineOperation({
  name: 'conversation-archive',
  summary: 'One archived transcript',
  description: 'The header and messages of one archive.',
  group: 'conversation',
  input: archiveInput,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/agents/{agent}/conversation/archives/{archive}',
    input: ({ params }) => ({ archive: params.archive }),
  },
  cli: {
    command: 'convo archive',
    summary: 'one archived transcript, one line per message',
    usage: 'mem convo archive <archive-id> [--agent A]',
    input: (cli) => ({ archive: need(cli, 0, 'the archive id (mem convo archives lists them)') }),
    print: (r: { messages: TranscriptMessage[] }) => lines(r.messages),
  },
  handle: async (ctx, input) => {
    const { archive } = input;
    // The service checks the id (never a path) before any store sees it.
    return conversationService(ctx).readArchive(ctx.principal.space, targetAgent(ctx), archive);
  },
});

const settingsShape = z.object({
  contextLength: z.number().describe('The context window in tokens.'),
  threshold: z.number().describe('Compression starts at threshold × contextLength tokens.'),
  strategy: z.enum(['summarize', 'sliding-window', 'drop-tool-results']),
});
const settingsResult = z.object({
  agent: z.string(),
  settings: settingsShape.describe('What the conversation uses: the server defaults overridden by the stored fields.'),
  stored: settingsShape.partial().describe('Only the fields set for this agent.'),
});
const SETTINGS_GUIDE =
  "An agent's conversation is compressed when its history reaches threshold × contextLength tokens, with its strategy: " +
  'summarize (archive, then a summary replaces the history), sliding-window (keep the newest messages) or drop-tool-results (replace old large tool results by a placeholder). ' +
  "Set contextLength to your model's context window. You act on your own agent; a lead may name another agent of its space.";

const settingsGetInput = z.object({ agent: z.string().optional().describe('The agent (default: you).') }).strict();

export const conversationSettingsGet = defineOperation({
  name: 'conversation-settings-get',
  summary: "An agent's context window, threshold and strategy",
  description: `${SETTINGS_GUIDE} Returns {agent, settings, stored}.`,
  group: 'conversation',
  input: settingsGetInput,
  output: settingsResult,
  write: false,
  http: { method: 'GET', path: '/v1/agents/{agent}/conversation/settings', input: () => ({}) },
  tool: true,
  cli: {
    command: 'convo settings',
    summary: "an agent's context window, threshold and strategy (set them with the flags; kept for later calls)",
    usage:
      'mem convo settings [--agent A] [--context-length N] [--threshold X] [--strategy summarize|sliding-window|drop-tool-results]',
    input: () => ({}),
    print: (r: z.infer<typeof settingsResult>) => {
      const s = r.settings;
      const given = (field: keyof typeof s) => (field in r.stored ? '' : ' (default)');
      return [
        `contextLength ${s.contextLength}${given('contextLength')}`,
        `threshold ${s.threshold}${given('threshold')} — compresses at ${Math.round(s.threshold * s.contextLength)} tokens`,
        `strategy ${s.strategy}${given('strategy')}`,
      ].join('\n');
    },
  },
  handle: async (ctx, input) => {
    const { agent: requested } = input;
    const agent = targetAgent(ctx, requested);
    return { agent, ...(await conversationService(ctx).contextSettings(ctx.principal.space, agent)) };
  },
});

const settingsSetInput = contextSettingsInput.extend({
  agent: z.string().optional().describe('The agent (default: you; another agent: lead only).'),
});

export const conversationSettingsSet = defineOperation({
  name: 'conversation-settings-set',
  summary: "Set an agent's context window, threshold or strategy (persisted)",
  description: `${SETTINGS_GUIDE} Each field given replaces the stored one; every later call on the agent's conversation uses them. Returns {agent, settings, stored}.`,
  group: 'conversation',
  input: settingsSetInput,
  output: settingsResult,
  write: true,
  http: {
    method: 'PUT',
    path: '/v1/agents/{agent}/conversation/settings',
    body: contextSettingsInput,
    input: ({ body }) => body ?? {},
  },
  tool: true,
  handle: async (ctx, input) => {
    const { agent: requested, ...fields } = input;
    const agent = targetAgent(ctx, requested);
    return { agent, ...(await conversationService(ctx).setContextSettings(ctx.principal.space, agent, fields)) };
  },
});

export const conversationOperations: Operation[] = [
  conversationSettingsGet,
  conversationSettingsSet,
  conversationAgents,
  conversationShow,
  conversationAdd,
  conversationCompact,
  conversationArchives,
  conversationArchive,
];
