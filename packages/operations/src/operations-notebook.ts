/**
 * The agent notebook (docs/notebooks.md) under `/v1/agents/{agent}/notebook…`, as MCP tools and as `mem notes …`.
 * A notebook belongs to an agent of the caller's space, optionally narrowed to a user and/or a topic (`user`,
 * `topic`: in the body, the query string, the tool arguments, or `--user` / `--topic`).
 */
import {
  checkName,
  deleteMemoryInput,
  listMemoryInput,
  type NotebookOwner,
  parseInput,
  readMemoryInput,
  searchMemoryInput,
  writeMemoryInput,
} from '@mem/core';
import { z } from 'zod';
import { type CliArgs, int, need, str, text } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { defineOperation, type OpContext, type Operation } from './operation.js';
import { defined } from './operation-helpers.js';
import { notebookService, targetAgent } from './operations-agent.js';
import { notebookDeleteResult, notebookListResult, notebookReadResult, notebookWriteResult } from './schemas.js';

/** The optional narrowing of a notebook to one user and/or one topic. */
const scopeFields = {
  user: z.string().min(1).max(200).optional().describe('Narrow the notebook to one user (a name).'),
  topic: z.string().min(1).max(200).optional().describe('Narrow the notebook to one topic (a name).'),
};
const scopeShape = z.object(scopeFields).strict();
type Scoped = { user?: string | undefined; topic?: string | undefined };

/** The notebook service and whose notebook (the agent checked, user and topic checked as names); the rest of the input. */
function notebookFor<T extends Scoped>(ctx: OpContext, input: T) {
  const { user, topic, ...rest } = input;
  if (user !== undefined) checkName(user, 'user');
  if (topic !== undefined) checkName(topic, 'topic');
  const owner: NotebookOwner = defined({
    space: ctx.principal.space,
    agentId: targetAgent(ctx),
    user,
    topic,
  }) as NotebookOwner;
  return { notebook: notebookService(ctx), owner, rest };
}

const scopeQuery = (query: Record<string, string>) => defined({ user: query.user, topic: query.topic });
const scopeOfCli = (cli: Pick<CliArgs, 'flags'>) =>
  defined({ user: str(cli.flags, 'user'), topic: str(cli.flags, 'topic') });

const fileQuery = z
  .object({
    file: z.string().min(1).max(300).optional().describe('A notebook file, e.g. MEMORY.md or plans/q3-roadmap.md.'),
    offset: z.string().regex(/^\d+$/, 'offset must be a whole number').optional(),
    ...scopeFields,
  })
  .strict();

const NOTEBOOK_GUIDE =
  'Your notebook is yours alone and MEMORY.md is shown to you at the start of every request, so keep it short and current: ' +
  'one line per fact or decision, grouped under headings; put longer material in topic files (e.g. "people.md", "plans/q3-roadmap.md"). ' +
  'Never store secrets, and never claim you saved something unless write_memory succeeded.';
const SCOPE_GUIDE = ' Give user and/or topic to work in a notebook narrowed to them.';

const writeInput = writeMemoryInput.extend(scopeFields);
export const writeMemory = defineOperation({
  name: 'write_memory',
  summary: 'Write to a notebook file (append, or replace one exact passage)',
  description:
    `${NOTEBOOK_GUIDE} Without oldText, content is appended as new line(s). With oldText (a passage that occurs exactly once — read the file first), it is replaced by content; empty content removes it. ` +
    `Update an outdated line instead of appending a contradicting one. Pass expectedVersion from read_memory to refuse the write if the file changed meanwhile. Returns {file, version, status: created|appended|updated}.${SCOPE_GUIDE}`,
  group: 'notebook',
  input: writeInput,
  output: notebookWriteResult,
  write: true,
  http: {
    method: 'POST',
    path: '/v1/agents/{agent}/notebook',
    input: ({ body }) => body,
    status: (r) => ((r as { status?: string }).status === 'created' ? 201 : 200),
    successStatus: [201],
  },
  tool: true,
  cli: {
    command: 'notes write',
    summary: 'append to a notebook file, or replace a passage that occurs once (--old-text)',
    usage: 'mem notes write <content|-> [--file F] [--old-text T] [--user U] [--topic T]',
    input: async (cli) =>
      defined({
        // Empty content is allowed: with --old-text it removes the passage.
        content: cli.args.join(' ') === '-' ? await cli.readStdin() : cli.args.join(' '),
        file: str(cli.flags, 'file'),
        oldText: str(cli.flags, 'old-text'),
        ...scopeOfCli(cli),
      }),
    print: (r: { status: string; file: string; version: string }) =>
      `${r.status[0]!.toUpperCase()}${r.status.slice(1)} ${r.file} (version ${r.version.slice(0, 12)}).`,
  },
  handle: (ctx, input) => {
    const { notebook, owner, rest } = notebookFor(ctx, input);
    return notebook.write(owner, rest);
  },
});

const readInput = readMemoryInput.extend(scopeFields);
export const readMemory = defineOperation({
  name: 'read_memory',
  summary: 'Read a notebook file',
  description: `Read a file of your notebook (MEMORY.md by default). Long files are cut at 65,536 characters with a marker; read on with offset. Returns the content and its version (for expectedVersion).${SCOPE_GUIDE}`,
  group: 'notebook',
  input: readInput,
  output: notebookReadResult,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/agents/{agent}/notebook/file',
    query: fileQuery,
    input: ({ query }) => {
      const q = parseInput(fileQuery, 'read_memory', query);
      return defined({
        file: q.file,
        offset: q.offset === undefined ? undefined : Number(q.offset),
        ...scopeQuery(query),
      });
    },
  },
  tool: true,
  cli: {
    command: 'notes read',
    summary: 'read a notebook file (cut at 65,536 characters; --offset reads on)',
    usage: 'mem notes read [file] [--offset N] [--user U] [--topic T]',
    input: (cli) => defined({ file: cli.args[0], offset: int(cli.flags, 'offset'), ...scopeOfCli(cli) }),
    print: (r: { content: string }) => r.content,
  },
  handle: (ctx, input) => {
    const { notebook, owner, rest } = notebookFor(ctx, input);
    return notebook.read(owner, rest);
  },
});

const deleteInput = deleteMemoryInput.extend(scopeFields);
export const deleteMemory = defineOperation({
  name: 'delete_memory',
  summary: 'Delete a notebook file (never MEMORY.md)',
  description: `Delete a topic file of your notebook that is no longer useful. MEMORY.md cannot be deleted: edit it instead.${SCOPE_GUIDE}`,
  group: 'notebook',
  input: deleteInput,
  output: notebookDeleteResult,
  write: true,
  http: {
    method: 'DELETE',
    path: '/v1/agents/{agent}/notebook/file',
    query: fileQuery,
    input: ({ query }) => {
      const q = parseInput(fileQuery, 'delete_memory', query);
      return defined({ file: q.file, ...scopeQuery(query) });
    },
  },
  tool: true,
  cli: {
    command: 'notes delete',
    usage: 'mem notes delete <file> [--user U] [--topic T]',
    input: (cli) => ({ file: need(cli, 0, 'the file to delete'), ...scopeOfCli(cli) }),
    print: (r: { file: string }) => `Deleted ${r.file}.`,
  },
  handle: (ctx, input) => {
    const { notebook, owner, rest } = notebookFor(ctx, input);
    return notebook.delete(owner, rest);
  },
});

const listInput = listMemoryInput.extend(scopeFields);
export const listMemory = defineOperation({
  name: 'list_memory',
  summary: 'List notebook files with sizes',
  description: `List the files of your notebook with their sizes, optionally only those under a prefix such as "plans/".${SCOPE_GUIDE}`,
  group: 'notebook',
  input: listInput,
  output: notebookListResult,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/agents/{agent}/notebook',
    query: z.object({ prefix: z.string().max(300).optional(), ...scopeFields }).strict(),
    input: ({ query }) => defined({ prefix: query.prefix, ...scopeQuery(query) }),
  },
  tool: true,
  cli: {
    command: 'notes list',
    summary: 'notebook files with sizes',
    usage: 'mem notes list [--prefix P] [--user U] [--topic T]',
    input: (cli) => defined({ prefix: str(cli.flags, 'prefix'), ...scopeOfCli(cli) }),
    print: (r: { files: { file: string; size: number; updatedAt: string }[] }) =>
      linesOr(r.files, 'No notebook files.', (f) => `${f.file}  ${f.size} bytes  ${f.updatedAt}`),
  },
  handle: (ctx, input) => {
    const { notebook, owner, rest } = notebookFor(ctx, input);
    return notebook.list(owner, rest);
  },
});

const searchInput = searchMemoryInput.extend(scopeFields);
const searchHit = z.object({ file: z.string(), snippet: z.string(), score: z.number() });
export const searchMemory = defineOperation({
  name: 'search_memory',
  summary: 'Search notebook file names and contents',
  description: `Search your notebook (file names weigh more than contents) and get up to 10 matches {file, snippet, score}; then read_memory the file you need.${SCOPE_GUIDE}`,
  group: 'notebook',
  input: searchInput,
  output: z.object({ results: z.array(searchHit) }),
  write: false,
  http: { method: 'POST', path: '/v1/agents/{agent}/notebook/search', input: ({ body }) => body },
  tool: true,
  cli: {
    command: 'notes search',
    summary: 'search notebook files by name and content',
    usage: 'mem notes search <query> [--user U] [--topic T]',
    input: (cli) => ({ query: text(cli, 'the query'), ...scopeOfCli(cli) }),
    print: (r: { results: z.infer<typeof searchHit>[] }) =>
      linesOr(r.results, 'No matches.', (h) => `${h.file} (${h.score.toFixed(3)}): ${h.snippet}`),
  },
  handle: async (ctx, input) => {
    const { notebook, owner, rest } = notebookFor(ctx, input);
    return { results: await notebook.search(owner, rest) };
  },
});

export const notebookInject = defineOperation({
  name: 'notebook-inject',
  summary: 'The notebook block injected into every model request',
  description:
    'The <memory> block (MEMORY.md within the line and token budget, then the list of other files) with its guidance, as it goes into a system message.',
  group: 'notebook',
  input: scopeShape,
  write: false,
  http: {
    method: 'GET',
    path: '/v1/agents/{agent}/notebook/inject',
    query: scopeShape,
    input: ({ query }) => scopeQuery(query),
  },
  cli: {
    command: 'notes inject',
    summary: 'the exact notebook block a model gets with every request',
    usage: 'mem notes inject [--user U] [--topic T]',
    input: scopeOfCli,
    print: (r: { text: string }) => r.text,
  },
  run: (ctx, raw) => {
    const { notebook, owner } = notebookFor(ctx, parseInput(scopeShape, 'notebook-inject', raw ?? {}));
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
