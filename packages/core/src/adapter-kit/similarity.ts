/** Vector hit scores as every store reports them (the adapter kit, exported from `@mem/core/adapter`). */

/**
 * A cosine similarity as a store reports it in a `VectorHit`: within [-1, 1] (a distance computed in float32 can
 * stray just past either end), and 0 for a value that is not a finite number — a zero vector has no direction,
 * so engines answer NaN or null for it.
 */
export function clampSimilarity(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(-1, value));
}
