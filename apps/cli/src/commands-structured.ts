/**
 * `mem facts get`: a user's facts merged into one object, or one value with `--key` (the routes answer the list, which
 * `mem facts list` renders from the operation table). Every other structured, state and runner command is declared by
 * the operation table (@mem/operations) and rendered in commands-table.ts.
 */
import { MemError } from '@mem/core';
import type { StructuredStores } from '@mem/core/adapter';
import { factUser, show } from '@mem/operations';
import { type Command, type Ctx, str } from './command.js';
import { inCliTerms } from './commands-table.js';

async function structured<K extends keyof StructuredStores>(ctx: Ctx, port: K): Promise<StructuredStores[K]> {
  try {
    return (await ctx.stack()).port(port);
  } catch (e) {
    throw inCliTerms(ctx, e);
  }
}

export const structuredCommands: Record<string, Command> = {
  'facts get': {
    summary: "a user's facts as one object (topic facts override global ones)",
    usage: 'mem facts get --user U [--topic T] [--key K]',
    async run(ctx) {
      const facts = await (await structured(ctx, 'facts')).get(
        ctx.p.space,
        factUser(ctx),
        str(ctx.flags, 'topic') ?? null,
      );
      const key = str(ctx.flags, 'key');
      if (key !== undefined) {
        const fact = facts.find((f) => f.key === key);
        if (!fact)
          throw new MemError(
            'NOT_FOUND',
            `No fact "${key}" for user "${factUser(ctx)}". List them with mem facts list --user ${factUser(ctx)}.`,
          );
        ctx.out(fact, () => show(fact.value));
        return;
      }
      const merged = Object.fromEntries(facts.map((f) => [f.key, f.value]));
      ctx.out(merged, () =>
        facts.length === 0 ? 'No facts.' : facts.map((f) => `${f.key} = ${show(f.value)}`).join('\n'),
      );
    },
  },
};
