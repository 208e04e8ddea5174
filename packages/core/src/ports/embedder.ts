/** Turns texts into vectors. `id` names the model; vectors from different ids never mix in one store. */
export interface Embedder {
  readonly id: string;
  readonly dimension: number;
  /** One vector per text, in order. Vectors need not be normalised; the stores compare by cosine. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
