/**
 * Commands that run the server's operations in process (the same validation, permission rules and answers as HTTP and
 * MCP). The server package loads on first use only, so `mem --help` and the other commands start without it.
 */
import type { Operation } from '@mem/server';
import { type Ctx, defined } from './command.js';

type Server = typeof import('@mem/server');
let server: Promise<Server> | undefined;

/** Run the operation `name` of the list `pick` chooses from the server package, as the CLI's principal. */
export async function runOperation<T>(
  ctx: Ctx,
  pick: (server: Server) => readonly Operation[],
  name: string,
  input: Record<string, unknown>,
): Promise<T> {
  const m = await (server ??= import('@mem/server'));
  const op = pick(m).find((o) => o.name === name);
  if (!op) throw new Error(`The server package has no operation "${name}".`);
  const stack = await ctx.stack();
  return (await op.run(
    { principal: ctx.p, stack, services: m.servicesOf(stack), params: {}, transport: 'cli' },
    defined(input),
  )) as T;
}
