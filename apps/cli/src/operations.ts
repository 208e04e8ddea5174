/**
 * Commands that run an operation of the table (@mem/operations) in process, with their own flags and printing (the
 * same validation, permission rules and answers as HTTP and MCP). The table loads on first use only.
 */
import type { Operation } from '@mem/operations';
import { type Ctx, defined } from './command.js';

type Server = typeof import('@mem/operations');
let server: Promise<Server> | undefined;

/** Run the operation `name` of the list `pick` chooses from the table, as the CLI's principal. */
export async function runOperation<T>(
  ctx: Ctx,
  pick: (server: Server) => readonly Operation[],
  name: string,
  input: Record<string, unknown>,
): Promise<T> {
  const m = await (server ??= import('@mem/operations'));
  const op = pick(m).find((o) => o.name === name);
  if (!op) throw new Error(`The operation table has no operation "${name}".`);
  const stack = await ctx.stack();
  return (await op.run(
    { principal: ctx.p, stack, services: m.servicesOf(stack), params: {}, transport: 'cli' },
    defined(input),
  )) as T;
}
