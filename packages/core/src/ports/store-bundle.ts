import type { CandidateStoreCapabilities } from './episode-store.js';
import type { Erasable } from './eraser.js';
import type { KnowledgeStore, KnowledgeStoreCapabilities } from './knowledge-store.js';
import type { NotebookStore, NotebookStoreCapabilities } from './notebook-store.js';
import type { StructuredStores } from './structured-stores.js';
import type { TranscriptStore, TranscriptStoreCapabilities } from './transcript-store.js';

/** A structured port name (`facts`, `episodes`, …). */
export type StructuredPort = keyof StructuredStores;

/**
 * What a store bundle serves, read once from its ports when the bundle is built: each port's own capabilities, and
 * the names of the structured ports it holds. A port the bundle does not serve is absent.
 */
export interface StoreBundleCapabilities {
  readonly knowledge?: KnowledgeStoreCapabilities;
  readonly transcripts?: TranscriptStoreCapabilities;
  readonly notebooks?: NotebookStoreCapabilities;
  /** The structured ports served, in the order of `StructuredStores`. */
  readonly structured: readonly StructuredPort[];
  readonly episodes?: CandidateStoreCapabilities;
  readonly procedures?: CandidateStoreCapabilities;
}

/**
 * The one shape every store package hands back from its `createXStores(options)`: the ports it serves (a subset of a
 * stack's), what they can do, and one `close()` for all of them. `createStack({ stores })` takes it as it is.
 * `eraser` is there when the storage keeps deleted rows on disk until erased (`forget` runs it).
 */
export interface StoreBundle extends Erasable {
  knowledge?: KnowledgeStore;
  transcripts?: TranscriptStore;
  notebooks?: NotebookStore;
  /** The structured ports, with the `eraser` of their storage when it has one. */
  structured?: Partial<StructuredStores> & Erasable;
  readonly capabilities: StoreBundleCapabilities;
  /**
   * Close every port of the bundle, then what the bundle opened for them (a connection, a pool). Idempotent: later and
   * concurrent calls wait for the first one; the ports report STORE_UNAVAILABLE afterwards.
   */
  close(): Promise<void>;
}
