/** pgvector's text form `[x,y,…]` to and from Float32Array. */

/** Float32Array → `[x,y,…]` (each float32 printed exactly enough to read back the same float32). */
export function vectorLiteral(vector: Float32Array): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    out += String(vector[i]);
  }
  return `${out}]`;
}

/** `[x,y,…]` → a fresh Float32Array. */
export function parseVector(text: string): Float32Array {
  const body = text.trim().slice(1, -1);
  if (body.trim() === '') return new Float32Array(0);
  const parts = body.split(',');
  const out = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}

/** pgvector's HNSW index takes `vector` columns of at most 2,000 dimensions. */
export const MAX_HNSW_DIMENSIONS = 2000;
