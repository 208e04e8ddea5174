/**
 * Store sizes as observable gauges: `mem.store.memories` and `mem.store.chunks` per space, read from the knowledge
 * store's `stats(space)` (counts, no text) when the meter collects.
 */
import type { KnowledgeStore } from '@mem/core/adapter';
import type { TelemetryOptions } from './telemetry.js';
import { telemetry } from './telemetry.js';

export interface StoreGaugeOptions extends TelemetryOptions {
  /** The spaces to report, or a function that names them at each collection. */
  spaces: readonly string[] | (() => readonly string[]);
}

/**
 * Register the store gauges on the meter (the global meter provider unless `meterProvider` is given). Returns a
 * function that removes them. A space whose stats fail is left out of that collection.
 */
export function observeStoreSizes(store: Pick<KnowledgeStore, 'stats'>, options: StoreGaugeOptions): () => void {
  const meter = telemetry(options).meter();
  const memories = meter.createObservableGauge('mem.store.memories', {
    description: 'Memories (documents) in the knowledge store, per space.',
    unit: '{memory}',
  });
  const chunks = meter.createObservableGauge('mem.store.chunks', {
    description: 'Chunks in the knowledge store, per space.',
    unit: '{chunk}',
  });
  const spaces = () => (typeof options.spaces === 'function' ? options.spaces() : options.spaces);
  const callback = async (result: {
    observe(observable: typeof memories, value: number, attributes: Record<string, string>): void;
  }) => {
    await Promise.all(
      spaces().map(async (space) => {
        const stats = await store.stats(space).catch(() => null);
        if (!stats) return;
        result.observe(memories, stats.documents, { 'mem.space': space });
        result.observe(chunks, stats.chunks, { 'mem.space': space });
      }),
    );
  };
  meter.addBatchObservableCallback(callback, [memories, chunks]);
  return () => meter.removeBatchObservableCallback(callback, [memories, chunks]);
}
