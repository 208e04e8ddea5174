import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  MemError,
  type Principal,
  type Stack,
} from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { episodicServices } from '@mem/episodic';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defaultOperations,
  type Operation,
  type OperationCall,
  type OperationEvent,
  observeOperations,
  toolsOf,
} from '../src/index.js';

const open: Stack[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** The hashing embedder, reporting one input token per word as an embedding API would. */
function countingEmbedder(): Embedder {
  const inner = createHashingEmbedder();
  return {
    id: inner.id,
    dimension: inner.dimension,
    embed: (texts: string[]) => inner.embed(texts),
    embedWithUsage: async (texts: string[]) => {
      const tokens = texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
      return {
        vectors: await inner.embed(texts),
        usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens },
      };
    },
  };
}

function stack(): Stack {
  const s = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: countingEmbedder(),
    structured: createInMemoryStructuredStores(),
    services: [episodicServices()],
  });
  open.push(s);
  return s;
}

const worker: Principal = { space: 'acme', agentId: 'coder', role: 'worker' };
const byName = (ops: readonly Operation[], name: string) => ops.find((o) => o.name === name)!;
const run = (ops: readonly Operation[], s: Stack, name: string, input: unknown, p = worker) =>
  byName(ops, name).run({ principal: p, stack: s, params: {}, transport: 'http' }, input);

describe('observeOperations', () => {
  it('reports each call with its name, space, door, outcome, duration and the tokens its result reports', async () => {
    const s = stack();
    const events: OperationEvent[] = [];
    const ops = observeOperations(defaultOperations(s), { onOperation: (e) => events.push(e) });
    const stored = (await run(ops, s, 'memory-store', { content: 'Invoices retry three times before paging.' })) as {
      id: string;
    };
    expect(stored.id).toMatch(/./);
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e).toMatchObject({
      operation: 'memory-store',
      space: 'acme',
      transport: 'http',
      write: true,
      outcome: 'ok',
    });
    expect(e!.durationMs).toBeGreaterThanOrEqual(0);
    expect(e!.usage!.inputTokens).toBeGreaterThan(0);
    expect(e!.usage!.totalTokens).toBe(e!.usage!.inputTokens);
    // Nothing of the input or the result is in the event.
    expect(JSON.stringify(e)).not.toContain('Invoices');
    await run(ops, s, 'memory-search', { query: 'invoice retries' });
    expect(events[1]).toMatchObject({ operation: 'memory-search', write: false, outcome: 'ok' });
  });

  it('reports a refusal with its MemError code and still throws the same error', async () => {
    const s = stack();
    const events: OperationEvent[] = [];
    const ops = observeOperations(defaultOperations(s), { onOperation: (e) => events.push(e) });
    const missing = await run(ops, s, 'memory-get', { id: '01jq0000000000000000000000' }).catch((e: unknown) => e);
    expect(MemError.is(missing, 'NOT_FOUND')).toBe(true);
    // The permission check runs inside: a worker asking for a lead-only operation is FORBIDDEN.
    const refused = await run(ops, s, 'consolidate', {}).catch((e: unknown) => e);
    expect(MemError.is(refused, 'FORBIDDEN')).toBe(true);
    const invalid = await run(ops, s, 'memory-store', { content: '' }).catch((e: unknown) => e);
    expect(MemError.is(invalid, 'INVALID_INPUT')).toBe(true);
    expect(events.map((e) => [e.operation, e.outcome, e.errorCode])).toEqual([
      ['memory-get', 'error', 'NOT_FOUND'],
      ['consolidate', 'error', 'FORBIDDEN'],
      ['memory-store', 'error', 'INVALID_INPUT'],
    ]);
    expect(events.every((e) => e.usage === undefined)).toBe(true);
  });

  it('runs each call inside `around`, which sees the call before it runs and its answer after', async () => {
    const s = stack();
    const log: string[] = [];
    const ops = observeOperations(defaultOperations(s), {
      around: async <T>(call: OperationCall, next: () => Promise<T>) => {
        log.push(`start ${call.operation} ${call.transport}`);
        try {
          return await next();
        } finally {
          log.push(`end ${call.operation}`);
        }
      },
      onOperation: (e) => log.push(`event ${e.operation} ${e.outcome}`),
    });
    const tools = toolsOf(ops, { stack: s, principal: worker, only: ['memory-store'] });
    await tools[0]!.run({ content: 'The staging database is reset every Monday.' });
    expect(log).toEqual(['start memory-store tool', 'event memory-store ok', 'end memory-store']);
  });

  it('changes no answer: an observer that throws is ignored, and without one the table is as it was', async () => {
    const plain = stack();
    const watched = stack();
    const table = defaultOperations(plain);
    expect(observeOperations(table, undefined).map((o) => o.run)).toEqual(table.map((o) => o.run));
    const ops = observeOperations(defaultOperations(watched), {
      onOperation: () => {
        throw new Error('observer bug');
      },
    });
    const content = { content: 'Deploys freeze on Friday afternoons.', key: '/longterm/decisions/deploy-freeze' };
    const a = (await run(table, plain, 'memory-store', content)) as Record<string, unknown>;
    const b = (await run(ops, watched, 'memory-store', content)) as Record<string, unknown>;
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    expect(b).toMatchObject({ key: a.key, chunkCount: a.chunkCount, deduplicated: false, usage: a.usage });
  });
});
