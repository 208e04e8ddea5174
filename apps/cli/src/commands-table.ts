/**
 * The commands the operation table declares (`cli` bindings in @mem/operations): the same operation, validation,
 * permission rule and answer as over HTTP and MCP, run in process as the CLI's principal.
 */

import { MemError } from '@mem/core';
import {
  formationOperations,
  knowledgeOperations,
  type Operation,
  reviewOperations,
  runnerOperations,
  stateOperations,
  structuredOperations,
} from '@mem/operations';
import { type Command, type Ctx, readTextFile } from './command.js';

/**
 * A port the chosen store lacks, said in the CLI's terms (which `--store` has it) instead of the adapter packages.
 * Keeps the error's code and details; anything else passes through unchanged.
 */
export function inCliTerms(ctx: Pick<Ctx, 'g'>, e: unknown): unknown {
  if (!MemError.is(e, 'CAPABILITY_MISSING')) return e;
  const { port, service } = e.details ?? {};
  if (service === 'notebook' || service === 'conversations') {
    return new MemError(
      'CAPABILITY_MISSING',
      `No ${service === 'notebook' ? 'notebook' : 'transcript'} store is configured. Use --transcripts markdown (the default) or --transcripts store.`,
      { details: { service } },
    );
  }
  if (typeof port !== 'string' || port === 'embedder') return e;
  return new MemError(
    'CAPABILITY_MISSING',
    `The ${ctx.g.store} store has no ${port} store. Use --store sqlite (the default), postgres or in-memory for it.`,
    { details: { port } },
  );
}

/** Run an operation in process as the CLI's principal (its permission first), errors in the CLI's terms. */
export async function runOperation(ctx: Ctx, op: Operation, input: unknown): Promise<unknown> {
  const stack = await ctx.stack();
  return op.run({ principal: ctx.p, stack, params: {}, transport: 'cli' }, input).catch((e: unknown) => {
    throw inCliTerms(ctx, e);
  });
}

/** A `mem` command for each operation of `ops` that has a CLI binding. */
export function tableCommands(ops: readonly Operation[]): Record<string, Command> {
  const commands: Record<string, Command> = {};
  for (const op of ops) {
    const cli = op.cli;
    if (!cli) continue;
    commands[cli.command] = {
      summary: cli.summary,
      usage: cli.usage,
      ...(cli.flags ? { flags: cli.flags } : {}),
      ...(cli.ownsFlags ? { ownsFlags: cli.ownsFlags } : {}),
      async run(ctx) {
        const input = await cli.input({
          args: ctx.args,
          flags: ctx.flags,
          readStdin: () => ctx.io.readStdin(),
          readTextFile,
        });
        const result = await runOperation(ctx, op, input);
        ctx.out(cli.json ? cli.json(result as never) : result, () => cli.print(result as never, input as never));
      },
    };
  }
  return commands;
}

/**
 * Every command the table declares: episodes, procedures, consolidate, forget; goals, summaries, session state, phases,
 * tool events; the runner (`turn context|record`, `task end`, `session end`, for `--agent`).
 */
export const operationCommands = tableCommands([...structuredOperations, ...stateOperations, ...runnerOperations]);

/**
 * The knowledge commands the table declares: store, search, get, edit, delete, rate, history, dedup-check, recall,
 * smart-recall, task-context, learn, stats; and memory that forms itself: distill, why.
 */
export const knowledgeTableCommands = tableCommands([
  ...knowledgeOperations,
  ...formationOperations,
  ...reviewOperations,
]);
