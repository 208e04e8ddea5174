/**
 * `mem facts …`: facts about users (docs/structured.md). The episodes, procedures, consolidate and forget commands are
 * declared by the operation table (@mem/operations) and rendered in commands-table.ts.
 */
import { type FactSource, factSetInput, type JsonValue, MemError, parseInput } from '@mem/core';
import type { StructuredStores } from '@mem/core/adapter';
import { show } from '@mem/operations';
import { type Command, type Ctx, need, str } from './command.js';
import { UsageError } from './context.js';

async function structured<K extends keyof StructuredStores>(ctx: Ctx, port: K): Promise<StructuredStores[K]> {
  try {
    return (await ctx.stack()).port(port);
  } catch (e) {
    if (MemError.is(e, 'CAPABILITY_MISSING')) {
      throw new MemError(
        'CAPABILITY_MISSING',
        `The ${ctx.g.store} store has no ${port} store. Use --store sqlite (the default), postgres or in-memory for it.`,
      );
    }
    throw e;
  }
}

function user(ctx: Ctx): string {
  const u = str(ctx.flags, 'user');
  if (!u) throw new UsageError('--user U is required (the user the facts belong to).');
  return u;
}

function topic(ctx: Ctx): string | null {
  return str(ctx.flags, 'topic') ?? null;
}

/** A fact value: JSON when it parses, otherwise the text itself (so `mem facts set color blue` works). */
function jsonValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

const factFlags = { user: { type: 'string' }, topic: { type: 'string' } } as const;

export const structuredCommands: Record<string, Command> = {
  'facts set': {
    summary: 'set a fact about a user (a lower-priority source never overwrites a higher one)',
    usage: 'mem facts set <key> <json-value> --user U [--topic T] [--source user|ai_inferred|mcp|other]',
    flags: { ...factFlags, source: { type: 'string' } },
    async run(ctx) {
      const input = parseInput(factSetInput, 'facts set', {
        user: user(ctx),
        key: need(ctx, 0, 'the fact key'),
        value: jsonValue(need(ctx, 1, 'the value (JSON, or plain text)')),
        topic: topic(ctx),
        source: str(ctx.flags, 'source') ?? 'user',
      });
      const r = await (await structured(ctx, 'facts')).upsert(ctx.p.space, {
        user: input.user,
        key: input.key,
        value: input.value as JsonValue,
        topic: input.topic ?? null,
        source: (input.source ?? 'user') as FactSource,
        at: (await ctx.stack()).clock.now().toISOString(),
      });
      ctx.out(r, () =>
        r.status === 'kept'
          ? `Kept: "${r.fact.key}" is held by a higher-priority source (${r.fact.source}): ${show(r.fact.value)}`
          : `${r.status === 'created' ? 'Set' : 'Updated'} ${r.fact.key} = ${show(r.fact.value)}`,
      );
    },
  },
  'facts get': {
    summary: "a user's facts as one object (topic facts override global ones)",
    usage: 'mem facts get --user U [--topic T] [--key K]',
    flags: { ...factFlags, key: { type: 'string' } },
    async run(ctx) {
      const facts = await (await structured(ctx, 'facts')).get(ctx.p.space, user(ctx), topic(ctx));
      const key = str(ctx.flags, 'key');
      if (key !== undefined) {
        const fact = facts.find((f) => f.key === key);
        if (!fact)
          throw new MemError(
            'NOT_FOUND',
            `No fact "${key}" for user "${user(ctx)}". List them with mem facts list --user ${user(ctx)}.`,
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
  'facts list': {
    summary: "a user's facts with their source and topic",
    usage: 'mem facts list --user U [--topic T]',
    flags: factFlags,
    async run(ctx) {
      const facts = await (await structured(ctx, 'facts')).get(ctx.p.space, user(ctx), topic(ctx));
      ctx.out({ facts }, () =>
        facts.length === 0
          ? 'No facts.'
          : facts
              .map(
                (f) =>
                  `${f.key} = ${show(f.value)}  [${f.source}${f.topic ? `, topic ${f.topic}` : ''}, ${f.updatedAt}]`,
              )
              .join('\n'),
      );
    },
  },
  'facts delete': {
    summary: 'delete one fact',
    usage: 'mem facts delete <key> --user U [--topic T]',
    flags: factFlags,
    async run(ctx) {
      const key = need(ctx, 0, 'the fact key');
      const deleted = await (await structured(ctx, 'facts')).delete(ctx.p.space, user(ctx), key, topic(ctx));
      if (!deleted)
        throw new MemError(
          'NOT_FOUND',
          `No fact "${key}" for user "${user(ctx)}"${topic(ctx) ? ` in topic ${topic(ctx)}` : ''}.`,
        );
      ctx.out({ deleted }, () => `Deleted ${key}.`);
    },
  },
};
