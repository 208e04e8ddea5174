/** Test wiring: a context manager on AsyncLocalStorage, an in-memory span exporter and a metric reader to collect. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, type Stack } from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { createSqliteStores } from '@mem/store-sqlite';
import { type Context, type ContextManager, context, metrics, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

class AlsContextManager implements ContextManager {
  private readonly als = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.als.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.als.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const f = target as unknown as (...a: unknown[]) => unknown;
    return ((...a: unknown[]) => this.with(ctx, () => f(...a))) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.als.disable();
    return this;
  }
}

/** A reader whose `collect()` the test calls. */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Telemetry {
  spans: InMemorySpanExporter;
  reader: TestReader;
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  /** The data points of one metric, as of now. */
  points(name: string): Promise<DataPoint<unknown>[]>;
  /** Register the providers (and the context manager) globally. */
  register(): void;
  shutdown(): Promise<void>;
}

export function testTelemetry(): Telemetry {
  const spans = new InMemorySpanExporter();
  const reader = new TestReader();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    spans,
    reader,
    tracerProvider,
    meterProvider,
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      return (found?.dataPoints ?? []) as DataPoint<unknown>[];
    },
    register() {
      context.setGlobalContextManager(new AlsContextManager());
      trace.setGlobalTracerProvider(tracerProvider);
      metrics.setGlobalMeterProvider(meterProvider);
    },
    async shutdown() {
      trace.disable();
      metrics.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The hashing embedder, reporting one input token per word as an embedding API would. */
export function countingEmbedder(): Embedder {
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

/** A stack on a real SQLite file in a fresh folder; `done()` closes it and removes the folder. */
export function sqliteStack(wrap: (o: { embedder: Embedder }) => { embedder: Embedder } = (o) => o): {
  stack: Stack;
  done(): Promise<void>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'mem-otel-'));
  const stack = createStack({
    stores: createSqliteStores({ path: join(dir, 'mem.db') }),
    ...wrap({ embedder: countingEmbedder() }),
  });
  return {
    stack,
    async done() {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
