/**
 * The IVF quantizer of the SQLite store's approximate vector index (engine code, used by `vector-index.ts` only;
 * it was in `@mem/core/adapter` before). Building blocks of an approximate vector index for cosine similarity (pure, no I/O): spherical k-means, a
 * two-level inverted-file (IVF) quantizer that assigns a vector to one of `coarse × fine` lists with
 * `coarse + fine` dot products, the lists a query probes, and per-vector int8 quantization (cosine does not
 * depend on a vector's length, so one scale per vector loses only rounding). A store keeps the lists; an exact
 * re-rank with the full vectors decides the final order.
 */
import { memoByKey, seededRandom } from '@mem/core/adapter';
import { int8Kernel, int8Stride } from './int8-kernel.js';
import { selectBest } from './select-best.js';

/** A trained two-level quantizer: coarse centroids, and the leaf centroids (the lists) under each of them. */
export interface IvfQuantizer {
  dimension: number;
  /** Unit-length coarse centroids. */
  coarse: Float32Array[];
  /** Unit-length leaf centroids; a leaf's index is its list id. */
  leaves: Float32Array[];
  /** Coarse centroid of each leaf. */
  leafParent: number[];
}

export interface IvfTrainOptions {
  /** Number of lists wanted (leaves). The quantizer may have fewer when the sample is small. */
  lists: number;
  /** k-means iterations per level. Default 6. */
  iterations?: number;
  /** Seed of the deterministic sampling. Default 1. */
  seed?: number;
}

/** Dot product of two vectors of equal length. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = a.length;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** A unit-length copy (a zero vector stays zero). */
export function unitVector(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  if (norm === 0 || !Number.isFinite(norm)) return out;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/**
 * The non-zero entries of `v` when they are few (at most a quarter of its length), else null. Sparse vectors (e.g.
 * from a hashing embedder) then cost their non-zeros per dot product instead of their length; dense ones are
 * unaffected. The sums are the same up to floating-point order.
 */
function sparse(v: Float32Array): { idx: Int32Array; val: Float32Array } | null {
  const max = v.length >> 2;
  let nnz = 0;
  for (let i = 0; i < v.length; i++) if (v[i] !== 0 && ++nnz > max) return null;
  const idx = new Int32Array(nnz);
  const val = new Float32Array(nnz);
  let k = 0;
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) {
      idx[k] = i;
      val[k++] = v[i]!;
    }
  }
  return { idx, val };
}

function argmaxDot(
  v: Float32Array,
  s: { idx: Int32Array; val: Float32Array } | null,
  centroids: readonly Float32Array[],
  start: number,
  end: number,
): number {
  let best = start;
  let bestDot = Number.NEGATIVE_INFINITY;
  for (let c = start; c < end; c++) {
    const centroid = centroids[c]!;
    let d = 0;
    if (s) {
      const { idx, val } = s;
      for (let k = 0; k < idx.length; k++) d += val[k]! * centroid[idx[k]!]!;
    } else d = dot(v, centroid);
    if (d > bestDot) {
      bestDot = d;
      best = c;
    }
  }
  return best;
}

/** Index of the centroid with the largest dot product with `v` (the first one on ties). */
export function nearestCentroid(v: Float32Array, centroids: readonly Float32Array[]): number {
  return argmaxDot(v, sparse(v), centroids, 0, centroids.length);
}

/**
 * Spherical k-means over unit vectors: at most `k` unit centroids (fewer when there are fewer points),
 * initialised from a seeded sample of the points; an emptied cluster takes a random point.
 */
export function sphericalKMeans(
  points: readonly Float32Array[],
  k: number,
  options: { iterations?: number; seed?: number } = {},
): Float32Array[] {
  const n = points.length;
  if (n === 0 || k <= 0) return [];
  const dim = points[0]!.length;
  const next = seededRandom(options.seed ?? 1);
  const count = Math.min(k, n);
  // Distinct starting points: a partial Fisher–Yates shuffle of the indices.
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(next() * (n - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let centroids: Float32Array[] = order.slice(0, count).map((i) => Float32Array.from(points[i]!));
  const assignment = new Int32Array(n);
  const iterations = options.iterations ?? 6;
  const views = points.map(sparse);
  for (let iter = 0; iter < iterations; iter++) {
    for (let p = 0; p < n; p++) assignment[p] = argmaxDot(points[p]!, views[p]!, centroids, 0, count);
    const sums = Array.from({ length: count }, () => new Float64Array(dim));
    const sizes = new Int32Array(count);
    for (let p = 0; p < n; p++) {
      const c = assignment[p]!;
      const s = sums[c]!;
      const view = views[p];
      if (view) {
        // A sparse point adds only its non-zeros (the same sums).
        const { idx, val } = view;
        for (let k = 0; k < idx.length; k++) s[idx[k]!] = s[idx[k]!]! + val[k]!;
      } else {
        const v = points[p]!;
        for (let i = 0; i < dim; i++) s[i] = s[i]! + v[i]!;
      }
      sizes[c] = sizes[c]! + 1;
    }
    centroids = sums.map((s, c) =>
      sizes[c] === 0 ? Float32Array.from(points[Math.floor(next() * n)]!) : unitVector(Float32Array.from(s)),
    );
  }
  return centroids;
}

/**
 * Train a two-level quantizer on `sample` (any lengths; they are normalised): `ceil(sqrt(lists))` coarse
 * centroids, then as many leaves under each as its share of the sample allows.
 */
export function trainIvf(sample: readonly Float32Array[], options: IvfTrainOptions): IvfQuantizer {
  if (sample.length === 0) throw new Error('trainIvf needs at least one vector');
  const dimension = sample[0]!.length;
  const points = sample.map(unitVector);
  const iterations = options.iterations ?? 6;
  const seed = options.seed ?? 1;
  const lists = Math.max(1, Math.floor(options.lists));
  const coarseCount = Math.max(1, Math.ceil(Math.sqrt(lists)));
  const finePer = Math.max(1, Math.ceil(lists / coarseCount));
  const coarse = sphericalKMeans(points, coarseCount, { iterations, seed });
  const groups: Float32Array[][] = coarse.map(() => []);
  for (const p of points) groups[nearestCentroid(p, coarse)]!.push(p);
  const leaves: Float32Array[] = [];
  const leafParent: number[] = [];
  for (const [c, group] of groups.entries()) {
    // Every coarse centroid keeps at least one leaf, so that every vector has a list.
    const fine =
      group.length === 0 ? [coarse[c]!] : sphericalKMeans(group, finePer, { iterations, seed: seed + c + 1 });
    for (const leaf of fine) {
      leaves.push(leaf);
      leafParent.push(c);
    }
  }
  return { dimension, coarse, leaves, leafParent };
}

/** The leaves under each coarse centroid (a split appends a leaf at the end, so they need not be contiguous). */
function childrenOf(q: IvfQuantizer): number[][] {
  const children: number[][] = q.coarse.map(() => []);
  for (const [leaf, parent] of q.leafParent.entries()) children[parent]?.push(leaf);
  return children;
}

const childrenOfQuantizer = memoByKey(childrenOf);

/**
 * The list of `v`: its nearest coarse centroid, then the nearest leaf under it (`coarse + fine` dot products). A
 * quantizer must not be mutated after its first use here (a split makes a new one).
 */
export function assignList(q: IvfQuantizer, v: Float32Array): number {
  const children = childrenOfQuantizer(q);
  const s = sparse(v);
  const parent = argmaxDot(v, s, q.coarse, 0, q.coarse.length);
  const under = children[parent]!;
  if (under.length === 0) return argmaxDot(v, s, q.leaves, 0, q.leaves.length);
  let best = under[0]!;
  let bestDot = Number.NEGATIVE_INFINITY;
  for (const leaf of under) {
    const d = dotWith(v, s, q.leaves[leaf]!);
    if (d > bestDot) {
      bestDot = d;
      best = leaf;
    }
  }
  return best;
}

function dotWith(v: Float32Array, s: { idx: Int32Array; val: Float32Array } | null, c: Float32Array): number {
  if (!s) return dot(v, c);
  let d = 0;
  for (let k = 0; k < s.idx.length; k++) d += s.val[k]! * c[s.idx[k]!]!;
  return d;
}

/**
 * The leaf centroids stored dimension by dimension (`columns[j × leaves + i]` is leaf i's value j), so that a query's
 * similarity to every leaf is a few passes over contiguous memory, one per non-zero query value. Each leaf's sum is
 * still taken in dimension order, so the similarities are exactly those of `dot`.
 */
const leafColumns = memoByKey((q: IvfQuantizer): Float32Array => {
  const n = q.leaves.length;
  const columns = new Float32Array(n * q.dimension);
  for (const [i, leaf] of q.leaves.entries()) {
    for (let j = 0; j < q.dimension; j++) columns[j * n + i] = leaf[j] ?? 0;
  }
  return columns;
});

/** The leaf centroids as int8 codes, rows of `stride` bytes, with each row's length: a dense query's first cut. */
interface LeafCodes {
  codes: Int8Array;
  norms: Float64Array;
  stride: number;
}

const leafCodes = memoByKey((q: IvfQuantizer): LeafCodes => {
  const stride = int8Stride(q.dimension);
  const codes = new Int8Array(q.leaves.length * stride);
  const norms = new Float64Array(q.leaves.length);
  for (const [i, leaf] of q.leaves.entries()) {
    const row = quantizeInt8(leaf);
    codes.set(row.subarray(0, stride), i * stride);
    let sq = 0;
    for (const c of row) sq += c * c;
    norms[i] = Math.sqrt(sq);
  }
  return { codes, norms, stride };
});

/** Extra leaves a dense query's first cut keeps beyond twice `nprobe`, so that int8 rounding never picks the lists. */
const SHORTLIST_SLACK = 16;

/**
 * The `nprobe` lists whose leaf centroids are most similar to `query`, best first (ties: lower list first).
 *
 * A sparse query (at most one value in eight non-zero: the hashing embedder's) is scored exactly against every leaf,
 * one pass over the column layout per non-zero value. A dense one (a sentence model's) would cost the full
 * dimension per leaf that way, so it takes a first cut instead: every leaf scored in int8 by the SIMD kernel the list
 * cache uses (a quarter of the float centroids' memory, sixteen products per instruction), then the best
 * `2 × nprobe + 16` scored again with the exact float dot product, which orders them. Int8 rounding moves a cosine by
 * about 10⁻³, far less than the gap between the `nprobe`-th leaf and the shortlist's last, so the lists are those of
 * the exact scan (measured over 1,431 leaves of 512 dimensions: 0.8–1.1 ms → 0.24 ms per dense query, same lists).
 */
export function probeLists(q: IvfQuantizer, query: Float32Array, nprobe: number): number[] {
  const n = q.leaves.length;
  const want = Math.min(n, Math.max(1, Math.floor(nprobe)));
  const dims = Math.min(query.length, q.dimension);
  let nonZero = 0;
  for (let j = 0; j < dims; j++) if (query[j] !== 0) nonZero++;
  const keep = 2 * want + SHORTLIST_SLACK;
  if (nonZero * 8 <= dims || n <= keep) return exactProbe(q, query, dims, want);
  const { codes, norms, stride } = leafCodes(q);
  const dots = int8Kernel().dots(quantizeInt8(dims < query.length ? query.subarray(0, dims) : query), [codes], stride);
  const approx = new Float64Array(n);
  for (let i = 0; i < n; i++) approx[i] = norms[i] === 0 ? 0 : dots[i]! / norms[i]!;
  const shortlist = selectBest(n, keep, (a, b) => approx[a]! < approx[b]! || (approx[a] === approx[b] && a > b));
  const scored = shortlist.map((leaf) => {
    const c = q.leaves[leaf]!;
    let score = 0;
    for (let j = 0; j < dims; j++) score += query[j]! * c[j]!;
    return { leaf, score };
  });
  scored.sort((a, b) => b.score - a.score || a.leaf - b.leaf);
  return scored.slice(0, want).map((s) => s.leaf);
}

/** Every leaf scored exactly over the column layout (skipping the query's zeros); the best `want`, best first. */
function exactProbe(q: IvfQuantizer, query: Float32Array, dims: number, want: number): number[] {
  const n = q.leaves.length;
  const columns = leafColumns(q);
  const scores = new Float64Array(n);
  for (let j = 0; j < dims; j++) {
    const v = query[j]!;
    if (v === 0) continue;
    const base = j * n;
    for (let i = 0; i < n; i++) scores[i]! += v * columns[base + i]!;
  }
  // The best `want` by a bounded heap whose root is the worst kept leaf.
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const heap = selectBest(n, want, worse);
  return heap.sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/**
 * Int8 copy of `v` scaled so that its largest magnitude is 127 (cosine ignores the scale). A zero or non-finite
 * vector gives zeros.
 */
export function quantizeInt8(v: Float32Array): Int8Array {
  let max = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i]!);
    if (a > max) max = a;
  }
  const out = new Int8Array(v.length);
  if (max === 0 || !Number.isFinite(max)) return out;
  const scale = 127 / max;
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i]! * scale);
  return out;
}

/**
 * Split one list in two: spherical 2-means over its vectors (any lengths; normalised here). Returns the two unit
 * centroids and, per vector, 0 or 1 for the side it goes to; null when the vectors do not separate (all equal, or
 * fewer than two), so that the caller keeps the list whole.
 */
export function splitTwo(
  vectors: readonly Float32Array[],
  seed = 1,
): { centroids: [Float32Array, Float32Array]; side: Uint8Array } | null {
  if (vectors.length < 2) return null;
  const points = vectors.map(unitVector);
  const found = sphericalKMeans(points, 2, { iterations: 8, seed });
  if (found.length < 2) return null;
  const centroids: [Float32Array, Float32Array] = [found[0]!, found[1]!];
  const side = new Uint8Array(points.length);
  let ones = 0;
  for (const [i, p] of points.entries()) {
    side[i] = nearestCentroid(p, centroids);
    ones += side[i]!;
  }
  if (ones === 0 || ones === points.length) return null;
  return { centroids, side };
}
