/** The knowledge commands (`mem store`, `search`, `recall`, `get`, …): memories through the stack's knowledge service. */
import {
  gc,
  MemError,
  type SearchResult,
  type Stack,
  toRecalledJson,
  toSearchJson,
  toSmartRecallJson,
} from '@mem/core';
import { PRIVATE_FILE_MODE } from '@mem/core/adapter';
import {
  bool,
  type Command,
  defined,
  fileProblem,
  int,
  need,
  num,
  readTextFile,
  refFrom,
  str,
  tags,
} from './command.js';
import { UsageError } from './context.js';
import { Progress } from './io.js';

// ---------- human formatting ----------

const fmt = (n: number | null, d = 3) => (n === null ? '—' : n.toFixed(d));

function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function renderResults(results: SearchResult[]): string {
  if (results.length === 0) return 'No memories found.';
  return results
    .map(
      (r, i) =>
        `${i + 1}. ${r.name}  [score ${fmt(r.score)} · relevance ${fmt(r.relevance)} · similarity ${fmt(r.similarity)}]\n` +
        `   id ${r.docId}${r.chunkCount > 1 ? ` (chunk ${r.chunkIndex + 1}/${r.chunkCount})` : ''} · ${r.key} · ${r.scope} · ${r.source}${r.tags.length ? ` · #${r.tags.join(' #')}` : ''}\n` +
        `   ${oneLine(r.content)}`,
    )
    .join('\n');
}

// ---------- commands ----------

export const knowledgeCommands: Record<string, Command> = {
  store: {
    summary: 'store a memory',
    usage: 'mem store <content|-> [--name N] [--key K] [--scope agent|swarm] [--source S] [--tags a,b]',
    flags: {
      name: { type: 'string' },
      key: { type: 'string' },
      scope: { type: 'string' },
      source: { type: 'string' },
      tags: { type: 'string' },
    },
    async run(ctx) {
      let content = need(ctx, 0, 'the content to store (or - to read it from stdin)');
      if (content === '-') content = await ctx.io.readStdin();
      const r = await (await ctx.stack()).knowledge.store(
        ctx.p,
        defined({
          content,
          name: str(ctx.flags, 'name'),
          key: str(ctx.flags, 'key'),
          scope: str(ctx.flags, 'scope'),
          source: str(ctx.flags, 'source'),
          tags: tags(ctx.flags),
        }),
      );
      ctx.out(
        r,
        () =>
          `${r.deduplicated ? 'Already remembered' : 'Stored'} ${r.id} at ${r.key} (${r.chunkCount} chunk${r.chunkCount === 1 ? '' : 's'})`,
      );
    },
  },
  search: {
    summary: 'search memories by meaning and keyword',
    usage: 'mem search <query> [--limit N] [--key-prefix P] [--scope S] [--tags a,b] [--source S] [--intent I]',
    flags: {
      intent: { type: 'string' },
      limit: { type: 'string' },
      'key-prefix': { type: 'string' },
      scope: { type: 'string' },
      tags: { type: 'string' },
      source: { type: 'string' },
    },
    async run(ctx) {
      const query = ctx.args.join(' ');
      if (!query.trim()) throw new UsageError('missing the search query.');
      const { results, intent, usage } = await (await ctx.stack()).knowledge.searchReport(
        ctx.p,
        defined({
          query,
          limit: int(ctx.flags, 'limit'),
          keyPrefix: str(ctx.flags, 'key-prefix'),
          scope: str(ctx.flags, 'scope'),
          tags: tags(ctx.flags),
          source: str(ctx.flags, 'source'),
          intent: str(ctx.flags, 'intent'),
        }),
      );
      ctx.out({ results: results.map(toSearchJson), intent, usage }, () => renderResults(results));
    },
  },
  get: {
    summary: 'read a memory in full (counts an access)',
    usage: 'mem get <id> | mem get --key K [--scope S]',
    flags: { key: { type: 'string' }, scope: { type: 'string' } },
    async run(ctx) {
      const doc = await (await ctx.stack()).knowledge.get(ctx.p, refFrom(ctx));
      ctx.out(doc, () =>
        [
          `${doc.name}`,
          `id ${doc.id} · ${doc.key} · ${doc.scope} · ${doc.source} · owner ${doc.agentId} · v${doc.version}${doc.tags.length ? ` · #${doc.tags.join(' #')}` : ''}`,
          `created ${doc.createdAt} · updated ${doc.updatedAt} · expires ${doc.expiresAt ?? 'never'} · accessed ${doc.accessCount}× · usefulness ${doc.usefulness.toFixed(2)} (α ${doc.alpha}, β ${doc.beta})`,
          '',
          doc.content,
        ].join('\n'),
      );
    },
  },
  edit: {
    summary: 'change a memory (replace, exact passage, or move with --new-key)',
    usage: 'mem edit <id> --intent I (--content C | --old-text A --new-text B | --new-key K)',
    flags: {
      intent: { type: 'string' },
      content: { type: 'string' },
      'old-text': { type: 'string' },
      'new-text': { type: 'string' },
      'new-key': { type: 'string' },
      key: { type: 'string' },
      scope: { type: 'string' },
      mode: { type: 'string' },
    },
    async run(ctx) {
      const intent = str(ctx.flags, 'intent');
      if (!intent) throw new UsageError('--intent "why this changes" is required.');
      let content = str(ctx.flags, 'content');
      if (content === '-') content = await ctx.io.readStdin();
      const r = await (await ctx.stack()).knowledge.edit(
        ctx.p,
        defined({
          ...refFrom(ctx),
          intent,
          mode: str(ctx.flags, 'mode'),
          content,
          oldText: str(ctx.flags, 'old-text'),
          newText: str(ctx.flags, 'new-text'),
          newKey: str(ctx.flags, 'new-key'),
        }),
      );
      ctx.out(
        r,
        () =>
          `${r.action === 'moved' ? 'Moved' : r.action === 'replaced' ? 'Updated' : 'Updated and moved'} ${r.id} → ${r.key} (version ${r.version})`,
      );
    },
  },
  delete: {
    summary: 'delete a memory with all its chunks',
    usage: 'mem delete <id> | mem delete --key K [--scope S]',
    flags: { key: { type: 'string' }, scope: { type: 'string' } },
    async run(ctx) {
      const r = await (await ctx.stack()).knowledge.delete(ctx.p, refFrom(ctx));
      ctx.out(r, () => `Deleted ${r.id} (${r.deletedChunks} chunk${r.deletedChunks === 1 ? '' : 's'})`);
    },
  },
  rate: {
    summary: 'rate a memory useful or not (once per task; your latest vote counts, not on your own memory)',
    usage: 'mem rate <id> --useful true|false --task-id T [--note N]',
    flags: { useful: { type: 'string' }, 'task-id': { type: 'string' }, note: { type: 'string' } },
    async run(ctx) {
      const taskId = str(ctx.flags, 'task-id');
      if (!taskId) throw new UsageError('--task-id T is required (a memory counts once per task).');
      const r = await (await ctx.stack()).knowledge.rate(
        ctx.p,
        defined({
          id: need(ctx, 0, 'the memory id'),
          useful: bool(ctx.flags, 'useful', true),
          taskId,
          note: str(ctx.flags, 'note'),
        }),
      );
      ctx.out(
        r,
        () =>
          `Rated ${r.id}: usefulness ${r.usefulness.toFixed(2)} (α ${r.alpha}, β ${r.beta})${r.note ? `. ${r.note}` : ''}`,
      );
    },
  },
  'dedup-check': {
    summary: 'is this text already remembered?',
    usage: 'mem dedup-check <text> [--threshold X] [--limit N]',
    flags: { threshold: { type: 'string' }, limit: { type: 'string' } },
    async run(ctx) {
      const text = ctx.args.join(' ');
      if (!text.trim()) throw new UsageError('missing the text to check.');
      const r = await (await ctx.stack()).knowledge.dedupCheck(
        ctx.p,
        defined({ text, threshold: num(ctx.flags, 'threshold'), limit: int(ctx.flags, 'limit') }),
      );
      ctx.out(r, () =>
        r.isDuplicate
          ? `Duplicate (top similarity ${r.topSimilarity.toFixed(3)}):\n${r.duplicates.map((d) => `- ${d.id} ${d.name} (${d.similarity.toFixed(3)})`).join('\n')}`
          : `Not a duplicate (top similarity ${r.topSimilarity.toFixed(3)}).`,
      );
    },
  },
  recall: {
    summary: 'the Relevant Past Knowledge block for a task',
    usage: 'mem recall <task> [--limit N] [--threshold X]',
    flags: { limit: { type: 'string' }, threshold: { type: 'string' } },
    async run(ctx) {
      const task = ctx.args.join(' ');
      if (!task.trim()) throw new UsageError('missing the task text.');
      const r = await (await ctx.stack()).knowledge.recall(
        ctx.p,
        task,
        defined({ limit: int(ctx.flags, 'limit'), threshold: num(ctx.flags, 'threshold') }),
      );
      ctx.out(
        { block: r.block, memories: r.memories.map(toRecalledJson), usage: r.usage },
        () => r.block ?? 'No relevant past knowledge.',
      );
    },
  },
  'smart-recall': {
    summary: 'several queries, merged',
    usage: 'mem smart-recall <query>... [--limit N]',
    flags: { limit: { type: 'string' } },
    async run(ctx) {
      if (ctx.args.length === 0) throw new UsageError('give at least one query.');
      const { results: r, usage } = await (await ctx.stack()).knowledge.smartRecallReport(
        ctx.p,
        defined({ queries: ctx.args, limit: int(ctx.flags, 'limit') }),
      );
      ctx.out({ results: r.map((x) => toSmartRecallJson(x)), usage }, () => renderResults(r));
    },
  },
  'task-context': {
    summary: 'the task plus a smart recall',
    usage: 'mem task-context <task> [--query Q]... [--limit N] [--task-id T]',
    flags: { query: { type: 'string', multiple: true }, limit: { type: 'string' }, 'task-id': { type: 'string' } },
    async run(ctx) {
      const task = ctx.args.join(' ');
      const queries = ctx.flags.query as string[] | undefined;
      const r = await (await ctx.stack()).knowledge.taskContext(
        ctx.p,
        defined({ task, queries, limit: int(ctx.flags, 'limit'), taskId: str(ctx.flags, 'task-id') }),
      );
      ctx.out(
        { task: r.task, taskId: r.taskId, memories: r.memories.map(toSearchJson), usage: r.usage },
        () => `Task: ${r.task}${r.taskId ? ` (task id ${r.taskId})` : ''}\n\n${renderResults(r.memories)}`,
      );
    },
  },
  learn: {
    summary: 'a lead teaches an agent a learning (swarm scope)',
    usage:
      'mem learn <learning> --for <agentId> --category mistake-pattern|best-practice|codebase-knowledge|preference',
    flags: { for: { type: 'string' }, category: { type: 'string' } },
    async run(ctx) {
      const learning = ctx.args.join(' ');
      const agentId = str(ctx.flags, 'for');
      if (!agentId) throw new UsageError('--for <agentId> is required.');
      const r = await (await ctx.stack()).knowledge.injectLearning(
        ctx.p,
        defined({ agentId, learning, category: str(ctx.flags, 'category') }),
      );
      ctx.out(r, () => `Taught ${agentId}: ${r.id} (${r.key})`);
    },
  },
  index: {
    summary: 'index documents (README, runbook) as file_index memories keyed by path',
    usage: 'mem index <file>... [--scope agent|swarm]',
    flags: { scope: { type: 'string' } },
    async run(ctx) {
      if (ctx.args.length === 0) throw new UsageError('give at least one file to index.');
      const stack = await ctx.stack();
      const results: ({ file: string } & Awaited<ReturnType<Stack['knowledge']['index']>>)[] = [];
      for (const file of ctx.args) {
        const content = readTextFile(file, 'the document');
        const scope = str(ctx.flags, 'scope') as 'agent' | 'swarm' | undefined;
        results.push({
          file,
          ...(await stack.knowledge.index(ctx.p, { sourcePath: file, content }, scope ? { scope } : {})),
        });
      }
      ctx.out({ results }, () =>
        results.map((r) => `${r.status.padEnd(9)} ${r.file} → ${r.key} (${r.chunkCount} chunks)`).join('\n'),
      );
    },
  },
  history: {
    summary: 'version history of a memory',
    usage: 'mem history <id>',
    flags: { key: { type: 'string' }, scope: { type: 'string' } },
    async run(ctx) {
      const versions = await (await ctx.stack()).knowledge.versions(ctx.p, refFrom(ctx));
      ctx.out({ versions }, () =>
        versions.length === 0
          ? 'No earlier versions.'
          : versions
              .map(
                (v) =>
                  `v${v.version} ${v.at} by ${v.agentId} — ${v.intent}\n   key ${v.oldKey}: ${oneLine(v.oldContent)}`,
              )
              .join('\n'),
      );
    },
  },
  gc: {
    summary: 'delete expired memories; prune transcript archives by retention (max age / max count)',
    usage:
      'mem gc [--all-spaces] [--archive-max-age-days N] [--archive-max-count N] (archives: a lead prunes every agent of the space, a worker its own; kept forever by default)',
    flags: {
      'all-spaces': { type: 'boolean' },
      'archive-max-age-days': { type: 'string' },
      'archive-max-count': { type: 'string' },
    },
    async run(ctx) {
      const r = await gc(
        await ctx.stack(),
        ctx.p,
        defined({
          allSpaces: ctx.flags['all-spaces'] === true,
          archiveMaxAgeDays: int(ctx.flags, 'archive-max-age-days'),
          archiveMaxCount: int(ctx.flags, 'archive-max-count'),
        }),
      );
      ctx.out(r, () =>
        [
          `Deleted ${r.deletedChunks} expired chunk${r.deletedChunks === 1 ? '' : 's'}.`,
          r.archives.skipped
            ? `Archives: not pruned (${r.archives.skipped}).`
            : `Archives: deleted ${r.archives.deleted} of ${r.archives.agents} agent${r.archives.agents === 1 ? '' : 's'} (max age ${r.archives.policy.maxAgeDays ?? 'none'} days, max count ${r.archives.policy.maxCount ?? 'none'}).`,
        ].join('\n'),
      );
    },
  },
  stats: {
    summary: 'counts per source and scope',
    usage: 'mem stats',
    flags: {},
    async run(ctx) {
      const s = await (await ctx.stack()).knowledge.stats(ctx.p);
      ctx.out(
        s,
        () =>
          `${s.documents} memories (${s.chunks} chunks) in space ${ctx.p.space}\nby source: ${JSON.stringify(s.bySource)}\nby scope: ${JSON.stringify(s.byScope)}`,
      );
    },
  },
  export: {
    summary: 'export memories as JSON Lines',
    usage: 'mem export [--out file.jsonl]',
    flags: { out: { type: 'string' } },
    async run(ctx) {
      const stack = await ctx.stack();
      const out = str(ctx.flags, 'out');
      const { createWriteStream, openSync } = await import('node:fs');
      const cannotWrite = (e: unknown) => new MemError('INVALID_INPUT', `Cannot write ${out}: ${fileProblem(e)}.`);
      let sink: import('node:fs').WriteStream | null = null;
      let failure: unknown = null;
      if (out) {
        try {
          sink = createWriteStream('', { fd: openSync(out, 'w', PRIVATE_FILE_MODE) });
        } catch (e) {
          throw cannotWrite(e);
        }
        sink.on('error', (e) => (failure = e));
      }
      let n = 0;
      for await (const rec of stack.knowledge.export(ctx.p)) {
        const line = `${JSON.stringify(rec)}\n`;
        if (sink) {
          if (!sink.write(line))
            await new Promise<void>((r) => {
              sink.once('drain', r);
              sink.once('error', () => r());
            });
          if (failure) throw cannotWrite(failure);
        } else ctx.io.stdout.write(line);
        n++;
      }
      if (sink) {
        const s = sink;
        await new Promise<void>((res, rej) => s.end((e?: Error | null) => (e ? rej(cannotWrite(e)) : res())));
        ctx.io.stderr.write(`Exported ${n} memories to ${out}\n`);
      }
    },
  },
  import: {
    summary: 'import memories from JSON Lines',
    usage: 'mem import <file.jsonl|->',
    flags: {},
    async run(ctx) {
      const file = need(ctx, 0, 'the JSON Lines file to import (or -)');
      const text = file === '-' ? await ctx.io.readStdin() : readTextFile(file, 'the JSON Lines file');
      const stack = await ctx.stack();
      const progress = new Progress(ctx.io, 'Importing', null);
      const r = await stack.knowledge.importLines(ctx.p, text, {
        onLine: (done, total, error) => {
          if (error)
            ctx.io.stderr.write(
              `${ctx.io.stderr.isTTY ? '\n' : ''}line ${error.line}: ${error.code}: ${error.message}\n`,
            );
          progress.update(done, total);
        },
      });
      progress.done();
      ctx.out(r, () => `Imported ${r.imported}, already present ${r.duplicates}, skipped ${r.skipped}.`);
      return r.skipped > 0 ? 1 : 0;
    },
  },
  reindex: {
    summary: 're-embed every memory with the current embedder',
    usage: 'mem reindex',
    flags: {},
    async run(ctx) {
      const stack = await ctx.stack();
      const progress = new Progress(ctx.io, 'Re-embedding chunks:', null);
      const r = await stack.knowledge.reindex({ onProgress: (n) => progress.update(n) });
      progress.done();
      ctx.out(r, () => `Re-embedded ${r.chunks} chunks with ${r.model} (${r.dimension} dimensions).`);
    },
  },
};
