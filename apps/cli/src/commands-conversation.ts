/** `mem convo …` and `mem notes …`: conversation memory (docs/conversations.md) and the agent notebook (docs/notebooks.md). */
import { type ConversationService, MemError, type Notebook, type TranscriptRole } from '@mem/core';
import { type Command, type Ctx, defined, int, need, num, str } from './command.js';
import { UsageError } from './context.js';

const ROLES: TranscriptRole[] = ['user', 'assistant', 'system', 'tool'];

async function conversations(ctx: Ctx): Promise<ConversationService> {
  const stack = await ctx.stack();
  if (!stack.conversations) {
    throw new MemError(
      'CAPABILITY_MISSING',
      'No transcript store is configured. Use --transcripts markdown (the default) or --transcripts store.',
    );
  }
  return stack.conversations;
}

async function notebook(ctx: Ctx): Promise<Notebook> {
  const stack = await ctx.stack();
  if (!stack.notebook) {
    throw new MemError(
      'CAPABILITY_MISSING',
      'No notebook store is configured. Use --transcripts markdown (the default) or --transcripts store.',
    );
  }
  return stack.notebook;
}

const owner = (ctx: Ctx) => ({
  space: ctx.p.space,
  agentId: ctx.p.agentId,
  ...(str(ctx.flags, 'user') ? { user: str(ctx.flags, 'user')! } : {}),
  ...(str(ctx.flags, 'topic') ? { topic: str(ctx.flags, 'topic')! } : {}),
});

/** `--context-length N --threshold X --strategy S`: given on any `mem convo` command, they are stored for the agent. */
const contextFlags = {
  'context-length': { type: 'string' },
  threshold: { type: 'string' },
  strategy: { type: 'string' },
} as const;

/** Store the context settings given as flags (validated by the service); undefined when none was given. */
async function saveContextFlags(ctx: Ctx) {
  const fields = defined({
    contextLength: int(ctx.flags, 'context-length'),
    threshold: num(ctx.flags, 'threshold'),
    strategy: str(ctx.flags, 'strategy'),
  });
  if (Object.keys(fields).length === 0) return undefined;
  return (await conversations(ctx)).setContextSettings(ctx.p.space, ctx.p.agentId, fields);
}

async function open(ctx: Ctx) {
  await saveContextFlags(ctx);
  const system = str(ctx.flags, 'system');
  return (await conversations(ctx)).openWithSettings({
    space: ctx.p.space,
    agentId: ctx.p.agentId,
    ...(system ? { systemPrompt: system } : {}),
  });
}

async function content(ctx: Ctx): Promise<string> {
  const text = ctx.args.join(' ');
  if (text === '-') return ctx.io.readStdin();
  return text;
}

const noteScope = { user: { type: 'string' }, topic: { type: 'string' } } as const;

export const conversationCommands: Record<string, Command> = {
  'convo settings': {
    summary: "an agent's context window, threshold and strategy (set them with the flags; kept for later calls)",
    usage:
      'mem convo settings [--agent A] [--context-length N] [--threshold X] [--strategy summarize|sliding-window|drop-tool-results]',
    flags: contextFlags,
    async run(ctx) {
      const r =
        (await saveContextFlags(ctx)) ?? (await (await conversations(ctx)).contextSettings(ctx.p.space, ctx.p.agentId));
      const s = r.settings;
      ctx.out({ agent: ctx.p.agentId, ...r }, () =>
        [
          `contextLength ${s.contextLength}${'contextLength' in r.stored ? '' : ' (default)'}`,
          `threshold ${s.threshold}${'threshold' in r.stored ? '' : ' (default)'} — compresses at ${Math.round(s.threshold * s.contextLength)} tokens`,
          `strategy ${s.strategy}${'strategy' in r.stored ? '' : ' (default)'}`,
        ].join('\n'),
      );
    },
  },
  'convo add': {
    summary: "append a message to an agent's transcript (written through before it returns)",
    usage:
      'mem convo add <content|-> [--agent A] --role user|assistant|system|tool [--context-length N] [--threshold X] [--strategy S]',
    flags: { role: { type: 'string' }, ...contextFlags },
    ownsFlags: ['role'],
    async run(ctx) {
      const role = str(ctx.flags, 'role') as TranscriptRole | undefined;
      if (!role || !ROLES.includes(role))
        throw new UsageError(`--role must be one of ${ROLES.join(', ')} (the message role).`);
      const text = await content(ctx);
      if (!text.trim()) throw new UsageError('missing the message content.');
      const convo = await open(ctx);
      const added = await convo.add(role, text);
      ctx.out({ message: added, tokens: convo.tokens(), needsCompression: convo.needsCompression() }, () =>
        added
          ? `Added ${role} message at ${added.at} (${convo.tokens()} tokens in history).`
          : 'Skipped an empty message.',
      );
    },
  },
  'convo show': {
    summary: 'the stored transcript, one line per message',
    usage: 'mem convo show [--agent A] [--context-length N] [--threshold X] [--strategy S]',
    flags: contextFlags,
    async run(ctx) {
      const convo = await open(ctx);
      const messages = await convo.messages();
      const rendered = messages.length === 0 ? 'No messages.' : await convo.render();
      ctx.out({ messages }, () => rendered);
    },
  },
  'convo context': {
    summary: 'the messages a model would get next: system prompt, rules, persistent memory, notebook, recall, turn',
    usage:
      'mem convo context [--agent A] [--system S] [--turn T] [--with-notes] [--recall] [--context-length N] [--threshold X] [--strategy S]',
    flags: {
      ...contextFlags,
      system: { type: 'string' },
      turn: { type: 'string' },
      'with-notes': { type: 'boolean' },
      recall: { type: 'boolean' },
    },
    async run(ctx) {
      const convo = await open(ctx);
      const turn = str(ctx.flags, 'turn');
      const notes =
        ctx.flags['with-notes'] === true ? (await (await notebook(ctx)).inject(owner(ctx))).text : undefined;
      const recall =
        ctx.flags.recall === true && turn
          ? ((await (await ctx.stack()).knowledge.recall(ctx.p, turn)).block ?? undefined)
          : undefined;
      const assembled = await convo.context({
        ...(turn ? { turn } : {}),
        ...(notes ? { notebook: notes } : {}),
        ...(recall ? { recall } : {}),
      });
      ctx.out(
        assembled,
        () =>
          assembled.messages.map((m) => `--- ${m.role}\n${m.content}`).join('\n') +
          `\n--- (${assembled.tokens} tokens)`,
      );
    },
  },
  'convo compact': {
    summary: 'archive the transcript and replace it by a summary (written by the summarizer when none is given)',
    usage: 'mem convo compact [--agent A] [--summary S] [--context-length N] [--threshold X] [--strategy S]',
    flags: { summary: { type: 'string' }, ...contextFlags },
    async run(ctx) {
      const convo = await open(ctx);
      const summary = str(ctx.flags, 'summary');
      if (summary !== undefined && !summary.trim()) throw new UsageError('--summary must not be empty.');
      const r = summary !== undefined ? await convo.compact(summary) : await convo.compress();
      ctx.out(r, () =>
        r.status === 'compacted'
          ? `Compacted: archived as ${r.archive.id}; ${r.tokensBefore} → ${r.tokensAfter} tokens.`
          : `Not compacted (${r.status}).`,
      );
    },
  },
  'convo archives': {
    summary: "an agent's archived transcripts (or one with --read ID)",
    usage: 'mem convo archives [--agent A] [--read ID]',
    flags: { read: { type: 'string' } },
    async run(ctx) {
      const service = await conversations(ctx);
      const id = str(ctx.flags, 'read');
      if (id) {
        const t = await service.readArchive(ctx.p.space, ctx.p.agentId, id);
        ctx.out(t, () => t.messages.map((m) => `[${m.at}] ${m.role}: ${m.content}`).join('\n'));
        return;
      }
      const list = await service.archives(ctx.p.space, ctx.p.agentId);
      ctx.out({ archives: list }, () =>
        list.length === 0 ? 'No archives.' : list.map((a) => `${a.id}  ${a.archivedAt}  ${a.size} bytes`).join('\n'),
      );
    },
  },
  'notes write': {
    summary: 'append to a notebook file, or replace a passage that occurs once (--old-text)',
    usage: 'mem notes write <content|-> [--file F] [--old-text T] [--user U] [--topic T]',
    flags: { file: { type: 'string' }, 'old-text': { type: 'string' }, ...noteScope },
    async run(ctx) {
      const text = await content(ctx);
      const oldText = str(ctx.flags, 'old-text');
      const file = str(ctx.flags, 'file');
      const r = await (await notebook(ctx)).write(owner(ctx), {
        content: text,
        ...(file ? { file } : {}),
        ...(oldText !== undefined ? { oldText } : {}),
      });
      ctx.out(
        r,
        () => `${r.status[0]!.toUpperCase()}${r.status.slice(1)} ${r.file} (version ${r.version.slice(0, 12)}).`,
      );
    },
  },
  'notes read': {
    summary: 'read a notebook file (cut at 65,536 characters; --offset reads on)',
    usage: 'mem notes read [file] [--offset N] [--user U] [--topic T]',
    flags: { offset: { type: 'string' }, ...noteScope },
    async run(ctx) {
      const file = ctx.args[0];
      const offset = int(ctx.flags, 'offset');
      const r = await (await notebook(ctx)).read(owner(ctx), {
        ...(file ? { file } : {}),
        ...(offset !== undefined ? { offset } : {}),
      });
      ctx.out(r, () => r.content);
    },
  },
  'notes delete': {
    summary: 'delete a notebook file (never MEMORY.md)',
    usage: 'mem notes delete <file> [--user U] [--topic T]',
    flags: noteScope,
    async run(ctx) {
      const r = await (await notebook(ctx)).delete(owner(ctx), { file: need(ctx, 0, 'the file to delete') });
      ctx.out(r, () => `Deleted ${r.file}.`);
    },
  },
  'notes list': {
    summary: 'notebook files with sizes',
    usage: 'mem notes list [--prefix P] [--user U] [--topic T]',
    flags: { prefix: { type: 'string' }, ...noteScope },
    async run(ctx) {
      const prefix = str(ctx.flags, 'prefix');
      const r = await (await notebook(ctx)).list(owner(ctx), prefix ? { prefix } : {});
      ctx.out(r, () =>
        r.files.length === 0
          ? 'No notebook files.'
          : r.files.map((f) => `${f.file}  ${f.size} bytes  ${f.updatedAt}`).join('\n'),
      );
    },
  },
  'notes search': {
    summary: 'search notebook files by name and content',
    usage: 'mem notes search <query> [--user U] [--topic T]',
    flags: noteScope,
    async run(ctx) {
      const query = ctx.args.join(' ');
      if (!query.trim()) throw new UsageError('missing the query.');
      const hits = await (await notebook(ctx)).search(owner(ctx), { query });
      ctx.out({ results: hits }, () =>
        hits.length === 0
          ? 'No matches.'
          : hits.map((h) => `${h.file} (${h.score.toFixed(3)}): ${h.snippet}`).join('\n'),
      );
    },
  },
  'notes inject': {
    summary: 'the exact notebook block a model gets with every request',
    usage: 'mem notes inject [--user U] [--topic T]',
    flags: noteScope,
    async run(ctx) {
      const r = await (await notebook(ctx)).inject(owner(ctx));
      ctx.out(r, () => r.text);
    },
  },
};
