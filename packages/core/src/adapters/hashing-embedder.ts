import { createHash } from 'node:crypto';
import { stem, tokenize } from '../domain/text.js';
import type { Embedder } from '../ports/embedder.js';

/**
 * A deterministic embedder for tests and for benchmarks that must not spend time embedding: each word (and
 * each pair of neighbouring words) is hashed to a signed bucket. Texts sharing words get similar vectors;
 * there is no notion of meaning beyond that. No model, no network, no randomness.
 */
export function createHashingEmbedder(options: { dimension?: number } = {}): Embedder {
  const dimension = options.dimension ?? 256;
  // Buckets of recent features, remembered: md5 per word was most of the cost of embedding a large corpus.
  const seen = new Map<string, { index: number; sign: number }>();
  const bucket = (feature: string): { index: number; sign: number } => {
    let b = seen.get(feature);
    if (b) return b;
    const h = createHash('md5').update(feature).digest();
    b = { index: h.readUInt32LE(0) % dimension, sign: (h[4]! & 1) === 0 ? 1 : -1 };
    if (seen.size >= 500_000) seen.clear();
    seen.set(feature, b);
    return b;
  };
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimension);
    const words = tokenize(text).map(stem);
    words.forEach((w, i) => {
      const a = bucket(w);
      v[a.index]! += a.sign;
      if (i > 0) {
        const b = bucket(`${words[i - 1]} ${w}`);
        v[b.index]! += 0.5 * b.sign;
      }
    });
    let norm = 0;
    for (let i = 0; i < dimension; i++) norm += v[i]! * v[i]!;
    if (norm > 0) {
      const s = 1 / Math.sqrt(norm);
      for (let i = 0; i < dimension; i++) v[i]! *= s;
    }
    return v;
  };
  return {
    id: `hashing-${dimension}`,
    dimension,
    embed: async (texts: string[]) => texts.map(embedOne),
  };
}
