/**
 * Fair sharing of heavy work between spaces (tenants). Every request runs "in" its key's space
 * (`inSpace`); the embedder the server uses is wrapped so that each `embed` call is cut into slices, and slices
 * wait in one lane per space, served round-robin. A space that embeds a 1,000,000-character memory holds the
 * embedder for one slice at a time: a small store in another space runs after at most one slice, not after the
 * whole job.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Embedder } from '@mem/core/adapter';

const currentSpace = new AsyncLocalStorage<string>();

/** Run `fn` (and everything it awaits) on behalf of `space`: its embedding waits in that space's lane. */
export function inSpace<T>(space: string, fn: () => T): T {
  return currentSpace.run(space, fn);
}

/** At most `concurrency` tasks at once; waiting tasks are taken one per lane in turn. */
export class FairQueue {
  /** Waiting starters per lane; a Map keeps insertion order, so moving a lane to the end is the round-robin. */
  private readonly lanes = new Map<string, (() => void)[]>();
  private running = 0;

  constructor(readonly concurrency = 1) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be 1 or more');
  }

  /** How many tasks wait (all lanes). */
  get waiting(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.length;
    return n;
  }

  async run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(lane);
    try {
      return await task();
    } finally {
      this.running--;
      this.next();
    }
  }

  private acquire(lane: string): Promise<void> {
    if (this.running < this.concurrency && this.lanes.size === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((start) => {
      const waiting = this.lanes.get(lane);
      if (waiting) waiting.push(start);
      else this.lanes.set(lane, [start]);
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.lanes.size > 0) {
      const [lane, waiting] = this.lanes.entries().next().value as [string, (() => void)[]];
      const start = waiting.shift()!;
      this.lanes.delete(lane);
      if (waiting.length > 0) this.lanes.set(lane, waiting);
      this.running++;
      start();
    }
  }
}

export interface FairEmbeddingOptions {
  /** Texts per slice (default 8): the longest another space waits behind a running job. */
  sliceSize?: number;
  /** Slices embedded at once across all spaces (default 2). */
  concurrency?: number;
}

const SHARED = Symbol.for('mem.server.fairEmbedding');

/**
 * Route the embedder's `embed` through a fair queue, in place (the stack's services hold this very object).
 * Returns a function that puts the original back. An embedder already shared is left as it is.
 */
export function shareEmbedderFairly(embedder: Embedder, options: FairEmbeddingOptions = {}): () => void {
  const target = embedder as Embedder & { [SHARED]?: true };
  if (target[SHARED]) return () => {};
  const sliceSize = options.sliceSize ?? 8;
  if (!Number.isInteger(sliceSize) || sliceSize < 1) throw new RangeError('sliceSize must be 1 or more');
  const queue = new FairQueue(options.concurrency ?? 2);
  const own = Object.getOwnPropertyDescriptor(target, 'embed');
  const original = target.embed.bind(target);
  const fair = async (texts: string[]): Promise<Float32Array[]> => {
    const lane = currentSpace.getStore() ?? '';
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length || i === 0; i += sliceSize) {
      const slice = texts.slice(i, i + sliceSize);
      out.push(...(await queue.run(lane, () => original(slice))));
      if (texts.length === 0) break;
    }
    return out;
  };
  Object.defineProperty(target, 'embed', { value: fair, configurable: true, writable: true });
  Object.defineProperty(target, SHARED, { value: true, configurable: true });
  return () => {
    if (own) Object.defineProperty(target, 'embed', own);
    else delete (target as { embed?: unknown }).embed;
    delete target[SHARED];
  };
}
