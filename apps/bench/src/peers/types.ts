/** The small surface every peer adapter offers the benches (retrieval.ts, scale.ts). */
import type { Embedder } from '@mem/core/adapter';

export interface PeerDoc {
  /** The bench's id for the document; search answers with these ids. */
  id: string;
  text: string;
  /** A space of its own (a LoCoMo conversation, the scale corpus): the peer's user id or namespace. */
  namespace: string;
  /** Owner and sharing, for the scale corpus's visibility rule (shared, or owned by the viewer). */
  owner?: string;
  shared?: boolean;
}

export interface Peer {
  readonly name: string;
  /** Stores a batch of documents (the peer embeds them through the bench's embedder). */
  ingest(batch: PeerDoc[]): Promise<void>;
  /** The bench ids of the top k documents of a namespace for a query, best first; with a viewer, only documents
   * shared or owned by that viewer. */
  search(query: string, k: number, namespace: string, viewer?: string): Promise<string[]>;
  /** Milliseconds spent computing embeddings so far (inside the embedder, so not the engine's time). */
  embedMs(): number;
  /** Median round trip of one embedding request that computes nothing, when the peer embeds over HTTP. */
  hopMs?(samples?: number): Promise<number>;
  close(): Promise<void>;
}

export interface PeerOptions {
  /** The embedder the mem stacks use in the same run; the peer embeds with it (in process or over HTTP). */
  embedder: Embedder;
  /** A temporary directory the peer may write to (removed by the caller). */
  dir: string;
}
