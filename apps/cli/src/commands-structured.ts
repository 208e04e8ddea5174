/** `mem facts|episodes|procedures|consolidate`: the structured, episodic and procedural memory of docs/structured.md */
import {
  type FactSource,
  factSetInput,
  forget,
  type JsonValue,
  MemError,
  type Procedure,
  parseInput,
  withEpisodeAuthor,
} from '@mem/core';
import type { StructuredStores } from '@mem/core/adapter';
import { checkConsolidator, createConsolidationPipeline, createEpisodicMemory } from '@mem/episodic';
import { createProceduralMemory } from '@mem/procedural';
import { bool, type Command, type Ctx, defined, int, need, readTextFile, str, tags } from './command.js';
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

async function episodic(ctx: Ctx, withEmbedder = true) {
  const stack = await ctx.stack();
  return createEpisodicMemory({
    store: await structured(ctx, 'episodes'),
    embedder: withEmbedder ? stack.embedder : undefined,
    clock: stack.clock,
  });
}

async function procedural(ctx: Ctx, withEmbedder = true) {
  const stack = await ctx.stack();
  return createProceduralMemory({
    store: await structured(ctx, 'procedures'),
    embedder: withEmbedder ? stack.embedder : undefined,
    clock: stack.clock,
  });
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

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function procedureLine(p: Procedure): string {
  const uses = p.successCount + p.failureCount;
  return `${p.id}  ${p.name}  (${p.successCount}/${uses} succeeded)${p.tags.length ? `  #${p.tags.join(' #')}` : ''}`;
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
  'episodes add': {
    summary: 'record what happened',
    usage:
      'mem episodes add <summary> [--decisions "a;b"] [--tools x,y] [--outcome success|failure|partial|unknown] [--session S] [--tags a,b]',
    flags: {
      decisions: { type: 'string' },
      tools: { type: 'string' },
      outcome: { type: 'string' },
      session: { type: 'string' },
      tags: { type: 'string' },
    },
    async run(ctx) {
      const episodicMemory = await episodic(ctx);
      const list = (name: string, sep: string) =>
        str(ctx.flags, name)
          ?.split(sep)
          .map((x) => x.trim())
          .filter(Boolean);
      const { episode: e, usage } = await episodicMemory.storeReport(
        ctx.p.space,
        withEpisodeAuthor(
          defined({
            summary: ctx.args.join(' '),
            keyDecisions: list('decisions', ';'),
            toolsUsed: list('tools', ','),
            outcome: str(ctx.flags, 'outcome'),
            sessionId: str(ctx.flags, 'session'),
            tags: tags(ctx.flags),
          }),
          ctx.p.agentId,
        ) as never,
      );
      ctx.out({ ...e, usage }, () => `Recorded episode ${e.id} (${e.outcome}).`);
    },
  },
  'episodes recall': {
    summary: 'episodes by keyword relevance fused with meaning',
    usage: 'mem episodes recall <query> [--limit N]',
    flags: { limit: { type: 'string' } },
    async run(ctx) {
      const episodicMemory = await episodic(ctx);
      const query = ctx.args.join(' ');
      if (!query.trim()) throw new UsageError('missing the query.');
      const { results: hits, usage } = await episodicMemory.recallReport(ctx.p.space, query, int(ctx.flags, 'limit'));
      ctx.out({ results: hits, usage }, () =>
        hits.length === 0
          ? 'No episodes found.'
          : hits
              .map(
                (h, i) =>
                  `${i + 1}. [${h.relevance.toFixed(3)}] ${h.episode.timestamp} ${h.episode.outcome}: ${h.episode.summary}`,
              )
              .join('\n'),
      );
    },
  },
  'episodes recent': {
    summary: 'the newest episodes',
    usage: 'mem episodes recent [--n N]',
    flags: { n: { type: 'string' } },
    async run(ctx) {
      const episodicMemory = await episodic(ctx, false);
      const list = await episodicMemory.recallRecent(ctx.p.space, int(ctx.flags, 'n'));
      ctx.out({ episodes: list }, () =>
        list.length === 0 ? 'No episodes.' : list.map((e) => `${e.timestamp} ${e.outcome}: ${e.summary}`).join('\n'),
      );
    },
  },
  'episodes by-tag': {
    summary: 'episodes carrying exactly this tag',
    usage: 'mem episodes by-tag <tag> [--limit N]',
    flags: { limit: { type: 'string' } },
    async run(ctx) {
      const episodicMemory = await episodic(ctx, false);
      const list = await episodicMemory.recallByTag(ctx.p.space, need(ctx, 0, 'the tag'), int(ctx.flags, 'limit'));
      ctx.out({ episodes: list }, () =>
        list.length === 0 ? 'No episodes.' : list.map((e) => `${e.timestamp} ${e.outcome}: ${e.summary}`).join('\n'),
      );
    },
  },
  'procedures add': {
    summary:
      'store a procedure (JSON: name, description, trigger, steps[{toolName, argsTemplate, expectedOutcome}], tags)',
    usage: 'mem procedures add <procedure.json|->',
    flags: {},
    async run(ctx) {
      const file = need(ctx, 0, 'the procedure JSON file (or -)');
      const text = file === '-' ? await ctx.io.readStdin() : readTextFile(file, 'the procedure file');
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch (e) {
        throw new MemError('INVALID_INPUT', `The procedure is not valid JSON (${(e as Error).message}).`);
      }
      const proceduralMemory = await procedural(ctx);
      const { procedure: p, usage } = await proceduralMemory.storeReport(ctx.p.space, input as never);
      ctx.out({ ...p, usage }, () => `Stored procedure ${p.id} (${p.name}, ${p.steps.length} steps).`);
    },
  },
  'procedures suggest': {
    summary: 'procedures for a situation, relevance combined with success rate',
    usage: 'mem procedures suggest <query> [--limit N]',
    flags: { limit: { type: 'string' } },
    async run(ctx) {
      const proceduralMemory = await procedural(ctx);
      const query = ctx.args.join(' ');
      if (!query.trim()) throw new UsageError('missing the query.');
      const { results: list, usage } = await proceduralMemory.suggestReport(
        ctx.p.space,
        query,
        int(ctx.flags, 'limit'),
      );
      ctx.out({ results: list, usage }, () =>
        list.length === 0
          ? 'No procedures found.'
          : list
              .map(
                (s, i) =>
                  `${i + 1}. [score ${s.score.toFixed(3)} · success ${s.successRate.toFixed(2)}] ${procedureLine(s.procedure)}`,
              )
              .join('\n'),
      );
    },
  },
  'procedures outcome': {
    summary: 'count one use of a procedure (atomic)',
    usage: 'mem procedures outcome <id> --success true|false',
    flags: { success: { type: 'string' } },
    async run(ctx) {
      const proceduralMemory = await procedural(ctx, false);
      const p = await proceduralMemory.recordOutcome(
        ctx.p.space,
        need(ctx, 0, 'the procedure id'),
        bool(ctx.flags, 'success', true)!,
      );
      ctx.out(p, () => procedureLine(p));
    },
  },
  'procedures show': {
    summary: 'one procedure with its steps',
    usage: 'mem procedures show <id>',
    flags: {},
    async run(ctx) {
      const proceduralMemory = await procedural(ctx, false);
      const p = await proceduralMemory.get(ctx.p.space, need(ctx, 0, 'the procedure id'));
      ctx.out(p, () =>
        [
          procedureLine(p),
          p.description,
          p.trigger ? `when: ${p.trigger}` : '',
          ...p.steps.map(
            (s, i) =>
              `  ${i + 1}. ${s.toolName} ${JSON.stringify(s.argsTemplate ?? {})}${s.expectedOutcome ? ` → ${s.expectedOutcome}` : ''}`,
          ),
        ]
          .filter(Boolean)
          .join('\n'),
      );
    },
  },
  forget: {
    summary:
      'delete everything of an agent (memories, transcripts, archives, notebooks, episodes, session summaries, states, phases, tool events) or a user (facts, goals, notebooks); lead only',
    usage: 'mem forget --agent A | --user U [--role lead] (the acting agent comes from MEM_AGENT)',
    flags: { agent: { type: 'string' }, user: { type: 'string' } },
    ownsFlags: ['agent'],
    async run(ctx) {
      const agentId = str(ctx.flags, 'agent');
      const userId = str(ctx.flags, 'user');
      if ((agentId === undefined) === (userId === undefined))
        throw new UsageError('give exactly one of --agent A and --user U.');
      const r = await forget(await ctx.stack(), ctx.p, agentId !== undefined ? { agentId } : { userId });
      const m = r.removed.memories;
      ctx.out(r, () =>
        [
          `Forgot ${agentId !== undefined ? `agent ${agentId}` : `user ${userId}`} in space ${r.space}:`,
          `  memories ${m.documents} (${m.chunks} chunks, ${m.versions} versions, ${m.ratings} ratings)`,
          `  transcripts ${r.removed.transcripts}, archives ${r.removed.archives}, notebook files ${r.removed.notebookFiles}`,
          `  episodes ${r.removed.episodes}, facts ${r.removed.facts}, goals ${r.removed.goals}, users ${r.removed.users}`,
          ...(agentId !== undefined
            ? [
                `  sessions: summaries ${r.removed.sessions.summaries}, states ${r.removed.sessions.states}, phases ${r.removed.sessions.phases}, tool events ${r.removed.sessions.toolEvents}`,
              ]
            : []),
          ...r.notes.map((n) => `  note: ${n}`),
        ].join('\n'),
      );
    },
  },
  consolidate: {
    summary: 'turn recent episodes into durable facts (lead only)',
    usage: 'mem consolidate [--min N] [--max N] [--role lead]',
    flags: { min: { type: 'string' }, max: { type: 'string' } },
    async run(ctx) {
      checkConsolidator(ctx.p);
      const stack = await ctx.stack();
      const pipeline = createConsolidationPipeline({
        episodes: await structured(ctx, 'episodes'),
        facts: await structured(ctx, 'facts'),
        clock: stack.clock,
      });
      const r = await pipeline.run(
        ctx.p.space,
        defined({ minEpisodes: int(ctx.flags, 'min'), maxEpisodes: int(ctx.flags, 'max') }),
      );
      ctx.out(r, () =>
        r.skipped
          ? `Skipped: ${r.skipped.episodes} episodes, at least ${r.skipped.minimum} needed.`
          : [
              `${r.newFacts} new facts, ${r.updatedFacts} updated, ${r.knownFacts} already known, from ${r.episodesProcessed} episodes in ${r.clustersFound} clusters.`,
              ...r.facts
                .filter((f) => f.status === 'created' || f.status === 'updated')
                .map((f) => `  ${f.status === 'created' ? '+' : '~'} ${f.key} = ${show(f.value)}`),
            ].join('\n'),
      );
    },
  },
};
