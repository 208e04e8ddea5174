/**
 * Per-agent operations: the notebook (docs/notebooks.md) and the conversation (docs/conversations.md), under `/v1/agents/{agent}/…`.
 * Over MCP the notebook tools act on the caller's own notebook; over HTTP a worker may open only its own agent,
 * a lead any agent of its space. The space always comes from the key.
 */
import {
  checkName,
  contextSettingsInput,
  conversationAddInput,
  conversationCompactInput,
  deleteMemoryInput,
  listMemoryInput,
  MemError,
  parseInput,
  readMemoryInput,
  searchMemoryInput,
  writeMemoryInput,
} from '@mem/core';
import { z } from 'zod';
import { defineOperation, type OpContext, type Operation } from './operation.js';
import {
  emptyInput,
  notebookDeleteResult,
  notebookListResult,
  notebookReadResult,
  notebookWriteResult,
} from './schemas.js';

/**
 * The agent an operation acts on, after checking the caller may (never another space: that comes from the key).
 * Another agent's notebook and conversation are private: a worker gets NOT_FOUND (not FORBIDDEN), the same answer
 * whether or not that agent exists, so that it never learns which agents have data.
 */
export function targetAgent(ctx: OpContext, requested?: string, what = 'notebook or conversation'): string {
  const agent = ctx.params.agent ?? requested ?? ctx.principal.agentId;
  checkName(agent, 'agent');
  if (agent !== ctx.principal.agentId && ctx.principal.role !== 'lead') {
    throw new MemError(
      'NOT_FOUND',
      `No ${what} of agent "${agent}" is visible to you: a worker may open only its own ("${ctx.principal.agentId}"); a lead may open any agent's of its space.`,
    );
  }
  return agent;
}

function notebookOf(ctx: OpContext) {
  const notebook = ctx.services.notebook;
  if (!notebook) throw new MemError('CAPABILITY_MISSING', 'This server has no notebook store configured.');
  return { notebook, owner: { space: ctx.principal.space, agentId: targetAgent(ctx) } };
}

function conversationsOf(ctx: OpContext) {
  const conversations = ctx.services.conversations;
  if (!conversations) throw new MemError('CAPABILITY_MISSING', 'This server has no transcript store configured.');
  return conversations;
}

const fileQuery = z
  .object({
    file: z.string().min(1).max(300).optional().describe('A notebook file, e.g. MEMORY.md or plans/q3-roadmap.md.'),
    offset: z.string().regex(/^\d+$/, 'offset must be a whole number').optional(),
  })
  .strict();

const NOTEBOOK_GUIDE =
  'Your notebook is yours alone and MEMORY.md is shown to you at the start of every request, so keep it short and current: ' +
  'one line per fact or decision, grouped under headings; put longer material in topic files (e.g. "people.md", "plans/q3-roadmap.md"). ' +
  'Never store secrets, and never claim you saved something unless write_memory succeeded.';

export const writeMemory = defineOperation({
  name: 'write_memory',
  summary: 'Write to a notebook file (append, or replace one exact passage)',
  description:
    `${NOTEBOOK_GUIDE} Without oldText, content is appended as new line(s). With oldText (a passage that occurs exactly once — read the file first), it is replaced by content; empty content removes it. ` +
    'Update an outdated line instead of appending a contradicting one. Pass expectedVersion from read_memory to refuse the write if the file changed meanwhile. Returns {file, version, status: created|appended|updated}.',
  group: 'notebook',
  input: writeMemoryInput,
  output: notebookWriteResult,
  write: true,
  http: {
    method: 'POST',
    path: '/v1/agents/{agent}/notebook',
    input: ({ body }) => body,
    status: (r) => ((r as { status?: string }).status === 'created' ? 201 : 200),
    successStatus: [201],
  },
  tool: { name: 'write_memory' },
  run: (ctx, input) => {
    const { notebook, owner } = notebookOf(ctx);
    return notebook.write(owner, input);
  },
});

export const readMemory = defineOperation({
  name: 'read_memory',
  summary: 'Read a notebook file',
  description:
    'Read a file of your notebook (MEMORY.md by default). Long files are cut at 65,536 characters with a marker; read on with offset. Returns the content and its version (for expectedVersion).',
  group: 'notebook',
  input: readMemoryInput,
  output: notebookReadResult,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/agents/{agent}/notebook/file',
    query: fileQuery,
    input: ({ query }) => {
      const q = parseInput(fileQuery, 'read_memory', query);
      return { ...(q.file ? { file: q.file } : {}), ...(q.offset ? { offset: Number(q.offset) } : {}) };
    },
  },
  tool: { name: 'read_memory' },
  run: (ctx, input) => {
    const { notebook, owner } = notebookOf(ctx);
    return notebook.read(owner, input);
  },
});

export const deleteMemory = defineOperation({
  name: 'delete_memory',
  summary: 'Delete a notebook file (never MEMORY.md)',
  description:
    'Delete a topic file of your notebook that is no longer useful. MEMORY.md cannot be deleted: edit it instead.',
  group: 'notebook',
  input: deleteMemoryInput,
  output: notebookDeleteResult,
  write: true,
  http: {
    method: 'DELETE',
    path: '/v1/agents/{agent}/notebook/file',
    query: fileQuery,
    input: ({ query }) => {
      const q = parseInput(fileQuery, 'delete_memory', query);
      return q.file === undefined ? {} : { file: q.file };
    },
  },
  tool: { name: 'delete_memory' },
  run: (ctx, input) => {
    const { notebook, owner } = notebookOf(ctx);
    return notebook.delete(owner, input);
  },
});

export const listMemory = defineOperation({
  name: 'list_memory',
  summary: 'List notebook files with sizes',
  description:
    'List the files of your notebook with their sizes, optionally only those under a prefix such as "plans/".',
  group: 'notebook',
  input: listMemoryInput,
  output: notebookListResult,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/agents/{agent}/notebook',
    query: z.object({ prefix: z.string().max(300).optional() }).strict(),
    input: ({ query }) => (query.prefix === undefined ? {} : { prefix: query.prefix }),
  },
  tool: { name: 'list_memory' },
  run: (ctx, input) => {
    const { notebook, owner } = notebookOf(ctx);
    return notebook.list(owner, input);
  },
});

export const searchMemory = defineOperation({
  name: 'search_memory',
  summary: 'Search notebook file names and contents',
  description:
    'Search your notebook (file names weigh more than contents) and get up to 10 matches {file, snippet, score}; then read_memory the file you need.',
  group: 'notebook',
  input: searchMemoryInput,
  output: z.object({ results: z.array(z.object({ file: z.string(), snippet: z.string(), score: z.number() })) }),
  write: false,
  http: { method: 'POST', path: '/v1/agents/{agent}/notebook/search', input: ({ body }) => body },
  tool: { name: 'search_memory' },
  run: async (ctx, input) => {
    const { notebook, owner } = notebookOf(ctx);
    return { results: await notebook.search(owner, input) };
  },
});

export const notebookInject = defineOperation({
  name: 'notebook-inject',
  summary: 'The notebook block injected into every model request',
  description:
    'The <memory> block (MEMORY.md within the line and token budget, then the list of other files) with its guidance, as it goes into a system message.',
  group: 'notebook',
  input: emptyInput,
  write: false,
  http: { method: 'GET', path: '/v1/agents/{agent}/notebook/inject', input: () => ({}) },
  run: (ctx) => {
    const { notebook, owner } = notebookOf(ctx);
    return notebook.inject(owner);
  },
});

export const notebookOperations: Operation[] = [
  writeMemory,
  readMemory,
  deleteMemory,
  listMemory,
  searchMemory,
  notebookInject,
];

// ---------- conversations ----------

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
  run: async (ctx) => {
    const agents = await conversationsOf(ctx).agents(ctx.principal.space);
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
  run: async (ctx) => {
    const agent = targetAgent(ctx);
    const conversation = await conversationsOf(ctx).openWithSettings({ space: ctx.principal.space, agentId: agent });
    return { agent, messages: await conversation.messages() };
  },
});

export const conversationAdd = defineOperation({
  name: 'conversation-add',
  summary: 'Append a message to an agent’s transcript (written through before the answer)',
  description:
    'Append one message (role system|user|assistant|tool). It is durable when the response arrives. Empty content is skipped.',
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
  run: async (ctx, raw) => {
    const input = parseInput(conversationAddInput, 'conversation-add', raw);
    const agent = targetAgent(ctx);
    const conversation = await conversationsOf(ctx).openWithSettings({ space: ctx.principal.space, agentId: agent });
    return { agent, message: await conversation.add(input.role, input.content) };
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
  run: async (ctx, raw) => {
    const input = parseInput(conversationCompactInput, 'conversation-compact', raw);
    const agent = targetAgent(ctx);
    const conversation = await conversationsOf(ctx).openWithSettings({ space: ctx.principal.space, agentId: agent });
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
  run: async (ctx) => ({
    archives: await conversationsOf(ctx).archives(ctx.principal.space, targetAgent(ctx)),
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
  run: async (ctx, raw) => {
    const { archive } = parseInput(archiveInput, 'conversation-archive', raw);
    // The service checks the id (never a path) before any store sees it.
    return conversationsOf(ctx).readArchive(ctx.principal.space, targetAgent(ctx), archive);
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
  tool: { name: 'conversation-settings-get' },
  run: async (ctx, raw) => {
    const { agent: requested } = parseInput(settingsGetInput, 'conversation-settings-get', raw);
    const agent = targetAgent(ctx, requested);
    return { agent, ...(await conversationsOf(ctx).contextSettings(ctx.principal.space, agent)) };
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
  tool: { name: 'conversation-settings-set' },
  run: async (ctx, raw) => {
    const { agent: requested, ...fields } = parseInput(settingsSetInput, 'conversation-settings-set', raw);
    const agent = targetAgent(ctx, requested);
    return { agent, ...(await conversationsOf(ctx).setContextSettings(ctx.principal.space, agent, fields)) };
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
