/**
 * The memory graph's commands (docs/graph.md): `mem graph read|search|open` come from the operation table;
 * `mem graph import` and `mem graph export` move an MCP memory server's JSONL file in and out, honouring that
 * server's `MEMORY_FILE_PATH` when no file is named.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemError } from '@mem/core';
import { PRIVATE_FILE_MODE } from '@mem/core/adapter';
import { graphOperations } from '@mem/operations';
import { type Command, type Ctx, fileProblem, readTextFile, str } from './command.js';
import { inCliTerms, tableCommands } from './commands-table.js';
import { UsageError } from './context.js';

/** The file a command names, else `MEMORY_FILE_PATH` (relative to the working directory), else null. */
function memoryFile(ctx: Ctx, given: string | undefined): string | null {
  const file = given ?? ctx.io.env.MEMORY_FILE_PATH;
  return file === undefined || file === '' ? null : file === '-' ? '-' : resolve(file);
}

const graphOf = async (ctx: Ctx) => {
  const stack = await ctx.stack();
  try {
    return stack.service('graph');
  } catch (e) {
    throw inCliTerms(ctx, e);
  }
};

export const graphCommands: Record<string, Command> = {
  ...tableCommands(graphOperations),
  'graph import': {
    summary: "import an MCP memory server's memory file (JSONL) into the memory graph",
    usage: 'mem graph import [file.jsonl|-]   (default: $MEMORY_FILE_PATH)',
    async run(ctx) {
      const file = memoryFile(ctx, ctx.args[0]);
      if (file === null) throw new UsageError('give the memory file to import (or -), or set MEMORY_FILE_PATH.');
      const text = file === '-' ? await ctx.io.readStdin() : readTextFile(file, 'the memory file');
      const r = await (await graphOf(ctx)).importJsonl(ctx.p, text);
      ctx.out(r, () => `Imported ${r.entities} entities and ${r.relations} relations.`);
    },
  },
  'graph export': {
    summary: "export the memory graph as an MCP memory server's memory file (JSONL)",
    usage: 'mem graph export [--out file.jsonl] [--as-of TIME]   (default: $MEMORY_FILE_PATH, else stdout)',
    async run(ctx) {
      const asOf = str(ctx.flags, 'as-of');
      if (asOf !== undefined && Number.isNaN(Date.parse(asOf)))
        throw new UsageError(`--as-of must be a time, e.g. 2026-05-01 or 2026-05-01T09:00:00Z (got "${asOf}").`);
      const text = await (await graphOf(ctx)).exportJsonl(ctx.p, asOf === undefined ? {} : { asOf });
      const out = memoryFile(ctx, str(ctx.flags, 'out'));
      if (out === null || out === '-') {
        ctx.io.stdout.write(text.length > 0 ? `${text}\n` : '');
        return;
      }
      try {
        writeFileSync(out, text, { mode: PRIVATE_FILE_MODE });
      } catch (e) {
        throw new MemError('INVALID_INPUT', `Cannot write ${out}: ${fileProblem(e)}.`);
      }
      const lines = text.length === 0 ? 0 : text.split('\n').length;
      ctx.io.stderr.write(`Exported ${lines} lines to ${out}\n`);
    },
  },
};
