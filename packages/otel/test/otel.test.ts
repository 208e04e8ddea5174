import { MemError, type Principal } from '@mem/core';
import { SpanStatusCode } from '@opentelemetry/api';
import type { HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { instrument, observeStoreSizes, operationObserver, tracedEmbedder } from '../src/index.js';
import { countingEmbedder, sqliteStack, type Telemetry, testTelemetry } from './helpers.js';

const worker: Principal = { space: 'acme', agentId: 'coder', role: 'worker' };
const TEXT = 'Invoices retry three times before paging the on-call engineer.';
const call = (operation: string, write: boolean) => ({ operation, space: 'acme', transport: 'http', write });

let telemetry: Telemetry | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await telemetry?.shutdown();
  telemetry = undefined;
});

function setUp(register = true) {
  telemetry = testTelemetry();
  if (register) telemetry.register();
  const s = sqliteStack(instrument);
  cleanups.push(s.done);
  return { t: telemetry, stack: s.stack, observer: operationObserver() };
}

describe('@mem/otel', () => {
  it('makes an operation span, with the embedding call inside it as a gen_ai span with its token usage', async () => {
    const { t, stack, observer } = setUp();
    const stored = await observer.around(call('memory-store', true), () =>
      stack.knowledge.store(worker, { content: TEXT }),
    );
    expect(stored.id).toMatch(/./);
    const spans = t.spans.getFinishedSpans();
    const op = spans.find((s) => s.name === 'mem memory-store')!;
    expect(op).toBeDefined();
    expect(op.attributes).toMatchObject({
      'mem.operation.name': 'memory-store',
      'mem.space': 'acme',
      'mem.transport': 'http',
      'mem.operation.write': true,
      'mem.outcome': 'ok',
    });
    expect(op.status.code).not.toBe(SpanStatusCode.ERROR);
    const embeds = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'embeddings');
    expect(embeds.length).toBeGreaterThan(0);
    const embed = embeds[0]!;
    expect(embed.name).toBe(`embeddings ${stack.embedder!.id}`);
    expect(embed.attributes).toMatchObject({
      'gen_ai.request.model': stack.embedder!.id,
      'gen_ai.provider.name': 'mem',
      'gen_ai.system': 'mem',
      'gen_ai.usage.output_tokens': 0,
    });
    expect(embed.attributes['gen_ai.usage.input_tokens']).toBeGreaterThanOrEqual(TEXT.split(' ').length);
    // The embedding call is a child of the operation's span.
    expect(embed.parentSpanContext?.spanId).toBe(op.spanContext().spanId);
    expect(embed.spanContext().traceId).toBe(op.spanContext().traceId);
    // No memory text anywhere in what was exported.
    const exported = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events]));
    expect(exported).not.toContain('Invoices');
    expect(exported).not.toContain('paging');
  });

  it('marks a failed operation with an error status and the MemError code, and rethrows the same error', async () => {
    const { t, stack, observer } = setUp();
    const error = await observer
      .around(call('memory-get', false), () => stack.knowledge.get(worker, { id: '01jq0000000000000000000000' }))
      .catch((e: unknown) => e);
    expect(MemError.is(error, 'NOT_FOUND')).toBe(true);
    const span = t.spans.getFinishedSpans().find((s) => s.name === 'mem memory-get')!;
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'NOT_FOUND' });
    expect(span.attributes).toMatchObject({ 'error.type': 'NOT_FOUND', 'mem.outcome': 'error' });
    const points = await t.points('mem.operation.duration');
    expect(points.map((p) => p.attributes)).toContainEqual({
      'mem.operation.name': 'memory-get',
      'mem.outcome': 'error',
      'error.type': 'NOT_FOUND',
      'mem.space': 'acme',
    });
  });

  it('records operation latency, token usage by type and the store size per space', async () => {
    const { t, stack, observer } = setUp();
    observeStoreSizes(stack.knowledgeStore, { spaces: () => ['acme', 'empty'] });
    await observer.around(call('memory-store', true), () => stack.knowledge.store(worker, { content: TEXT }));
    await observer.around(call('memory-store', true), () =>
      stack.knowledge.store(worker, { content: 'Staging resets every Monday at noon.' }),
    );
    await observer.around(call('memory-search', false), () => stack.knowledge.search(worker, { query: 'retries' }));
    const latency = await t.points('mem.operation.duration');
    const of = (name: string) =>
      latency.find((p) => p.attributes['mem.operation.name'] === name && p.attributes['mem.outcome'] === 'ok');
    const storeLatency = of('memory-store')!.value as { count: number; sum: number };
    expect(storeLatency.count).toBe(2);
    expect(storeLatency.sum).toBeGreaterThan(0);
    expect(storeLatency.sum).toBeLessThan(30);
    expect((of('memory-search')!.value as { count: number }).count).toBe(1);
    const tokens = await t.points('gen_ai.client.token.usage');
    const input = tokens.find((p) => p.attributes['gen_ai.token.type'] === 'input')!;
    const embedSpans = t.spans.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'embeddings');
    const spent = embedSpans.reduce((n, s) => n + Number(s.attributes['gen_ai.usage.input_tokens']), 0);
    expect((input.value as { sum: number }).sum).toBe(spent);
    expect(input.attributes['gen_ai.operation.name']).toBe('embeddings');
    // An embedding model writes nothing: no output data point for it.
    expect(tokens.filter((p) => p.attributes['gen_ai.token.type'] === 'output')).toEqual([]);
    const memories = await t.points('mem.store.memories');
    expect(memories.map((p) => [p.attributes['mem.space'], p.value])).toEqual([
      ['acme', 2],
      ['empty', 0],
    ]);
    const metricKinds = (await t.reader.collect()).resourceMetrics.scopeMetrics[0]!.metrics;
    expect(
      (metricKinds.find((m) => m.descriptor.name === 'mem.operation.duration') as HistogramMetricData).descriptor.unit,
    ).toBe('s');
  });

  it('records a failing embedding call as an error span and passes the error on', async () => {
    const { t } = setUp();
    const failing = tracedEmbedder({
      id: 'openai:text-embedding-3-small',
      dimension: 4,
      embed: async () => {
        throw new MemError('EMBEDDER_FAILED', 'the endpoint answered 500');
      },
    });
    const error = await failing.embed(['x']).catch((e: unknown) => e);
    expect(MemError.is(error, 'EMBEDDER_FAILED')).toBe(true);
    expect('embedWithUsage' in failing).toBe(false);
    const [span] = t.spans.getFinishedSpans();
    expect(span!.name).toBe('embeddings openai:text-embedding-3-small');
    expect(span!.attributes['gen_ai.provider.name']).toBe('openai');
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'EMBEDDER_FAILED' });
  });

  it('records nothing without a registered provider, and the answers are those of an uninstrumented stack', async () => {
    const { t, stack, observer } = setUp(false);
    const plain = sqliteStack();
    cleanups.push(plain.done);
    const key = '/longterm/decisions/deploy-freeze';
    const a = await observer.around(call('memory-store', true), () =>
      stack.knowledge.store(worker, { content: TEXT, key }),
    );
    const b = await plain.stack.knowledge.store(worker, { content: TEXT, key });
    expect({ ...a, id: '', ids: [] }).toEqual({ ...b, id: '', ids: [] });
    const found = await observer.around(call('memory-search', false), () =>
      stack.knowledge.search(worker, { query: 'invoice retries' }),
    );
    const same = await plain.stack.knowledge.search(worker, { query: 'invoice retries' });
    expect(found.map((r) => [r.key, r.score])).toEqual(same.map((r) => [r.key, r.score]));
    expect(t.spans.getFinishedSpans()).toEqual([]);
    expect(await t.points('mem.operation.duration')).toEqual([]);
    // The wrapper keeps the port's own properties.
    const embedder = countingEmbedder();
    const wrapped = tracedEmbedder(embedder);
    expect([wrapped.id, wrapped.dimension, 'embedWithUsage' in wrapped]).toEqual([
      embedder.id,
      embedder.dimension,
      true,
    ]);
    expect(await wrapped.embed(['a b'])).toEqual(await embedder.embed(['a b']));
  });
});
