/**
 * The knowledge commands that are not operations of the table as they stand (`mem index`, `gc`, `export`, `import`,
 * `reindex`): files, progress, every space. `mem store`, `search`, `get`, `edit`, `delete`, `rate`, `history`,
 * `dedup-check`, `recall`, `smart-recall`, `task-context`, `learn` and `stats` come from the table.
 */
import { gc, MemError, type Stack } from '@mem/core';
import { exportJsonLines, importJsonLines, PRIVATE_FILE_MODE } from '@mem/core/adapter';
import { type Command, defined, fileProblem, int, need, readTextFile, str } from './command.js';
import { UsageError } from './context.js';
import { Progress } from './io.js';

// ---------- commands ----------

export const knowledgeCommands: Record<string, Command> = {
  index: {
    summary: 'index documents (README, runbook) as file_index memories keyed by path',
    usage: 'mem index <file>... [--scope agent|swarm]',
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
  gc: {
    summary: 'delete expired memories; prune transcript archives by retention (max age / max count)',
    usage:
      'mem gc [--all-spaces] [--archive-max-age-days N] [--archive-max-count N] (archives: a lead prunes every agent of the space, a worker its own; kept forever by default)',
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
  export: {
    summary: 'export memories and the memory graph as JSON Lines',
    usage: 'mem export [--out file.jsonl]',
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
      let graph = 0;
      for await (const rec of exportJsonLines(stack, ctx.p)) {
        const line = `${JSON.stringify(rec)}\n`;
        if (sink) {
          if (!sink.write(line))
            await new Promise<void>((r) => {
              sink.once('drain', r);
              sink.once('error', () => r());
            });
          if (failure) throw cannotWrite(failure);
        } else ctx.io.stdout.write(line);
        if ('type' in rec) graph++;
        else n++;
      }
      if (sink) {
        const s = sink;
        await new Promise<void>((res, rej) => s.end((e?: Error | null) => (e ? rej(cannotWrite(e)) : res())));
        ctx.io.stderr.write(`Exported ${n} memories${graph > 0 ? ` and ${graph} graph records` : ''} to ${out}\n`);
      }
    },
  },
  import: {
    summary: 'import memories and the memory graph from JSON Lines',
    usage: 'mem import <file.jsonl|->',
    async run(ctx) {
      const file = need(ctx, 0, 'the JSON Lines file to import (or -)');
      const text = file === '-' ? await ctx.io.readStdin() : readTextFile(file, 'the JSON Lines file');
      const stack = await ctx.stack();
      const progress = new Progress(ctx.io, 'Importing', null);
      const r = await importJsonLines(stack, ctx.p, text, {
        onLine: (done, total, error) => {
          if (error)
            ctx.io.stderr.write(
              `${ctx.io.stderr.isTTY ? '\n' : ''}line ${error.line}: ${error.code}: ${error.message}\n`,
            );
          progress.update(done, total);
        },
      });
      progress.done();
      const g = r.graph;
      const graph =
        g.entities + g.observations + g.relations + g.log + g.duplicates > 0
          ? `\nGraph: ${g.entities} entities, ${g.observations} observations, ${g.relations} relations, ${g.log} log lines imported; already present ${g.duplicates}.`
          : '';
      ctx.out(r, () => `Imported ${r.imported}, already present ${r.duplicates}, skipped ${r.skipped}.${graph}`);
      return r.skipped > 0 ? 1 : 0;
    },
  },
  reindex: {
    summary: 're-embed every memory with the current embedder',
    usage: 'mem reindex',
    async run(ctx) {
      const stack = await ctx.stack();
      const progress = new Progress(ctx.io, 'Re-embedding chunks:', null);
      const r = await stack.knowledge.reindex({ onProgress: (n) => progress.update(n) });
      progress.done();
      ctx.out(r, () => `Re-embedded ${r.chunks} chunks with ${r.model} (${r.dimension} dimensions).`);
    },
  },
};
