import type { TokenUsage } from './summarizer.js';

/** Vectors of one embedder call and the tokens it spent. */
export interface EmbeddingResult {
  /** One vector per text, in order. */
  vectors: Float32Array[];
  /** Tokens the call spent (an embedding model reads only: `outputTokens` is 0). */
  usage: TokenUsage;
}

/** Turns texts into vectors. `id` names the model; vectors from different ids never mix in one store. */
export interface Embedder {
  readonly id: string;
  readonly dimension: number;
  /** One vector per text, in order. Vectors need not be normalised; the stores compare by cosine. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * Optional: the same vectors as `embed` plus the tokens the call spent, for embedders that call a model over an API
   * (e.g. @mem/embed-openai). When present, the services call it instead of `embed` and report the usage in their
   * results; embedders that spend nothing (the local model, the hashing embedder) leave it out and report zero.
   */
  embedWithUsage?(texts: string[]): Promise<EmbeddingResult>;
}
