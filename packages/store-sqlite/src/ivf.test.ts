import { cosine, seededRandom } from '@mem/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignList,
  dot,
  nearestCentroid,
  probeLists,
  quantizeInt8,
  sphericalKMeans,
  splitTwo,
  trainIvf,
  unitVector,
} from './ivf.js';

/** Uniform numbers in [-0.5, 0.5), seeded. */
function seeded(seed: number): () => number {
  const next = seededRandom(seed);
  return () => next() - 0.5;
}

/** Points around `clusters` random directions. */
function clustered(n: number, dim: number, clusters: number, seed = 3): Float32Array[] {
  const r = seeded(seed);
  const centers = Array.from({ length: clusters }, () => Float32Array.from({ length: dim }, () => r()));
  return Array.from({ length: n }, (_, i) => {
    const c = centers[i % clusters]!;
    return Float32Array.from(c, (x) => x + 0.15 * r());
  });
}

const vector = (dim: number) =>
  fc
    .array(fc.float({ min: -10, max: 10, noNaN: true }), { minLength: dim, maxLength: dim })
    .map((xs) => Float32Array.from(xs));

describe('vector index building blocks', () => {
  it('unitVector gives length 1 (or a zero vector), and quantizeInt8 keeps the cosine', () => {
    fc.assert(
      fc.property(vector(16), vector(16), (a, b) => {
        const u = unitVector(a);
        const norm = Math.sqrt(dot(u, u));
        expect(norm === 0 || Math.abs(norm - 1) < 1e-5).toBe(true);
        const qa = Float32Array.from(quantizeInt8(a));
        const qb = Float32Array.from(quantizeInt8(b));
        if (dot(qa, qa) > 0 && dot(qb, qb) > 0 && dot(a, a) > 1e-3 && dot(b, b) > 1e-3)
          expect(Math.abs(cosine(qa, qb) - cosine(a, b))).toBeLessThan(0.1);
      }),
    );
    expect([...quantizeInt8(new Float32Array(4))]).toEqual([0, 0, 0, 0]);
    expect(Math.max(...quantizeInt8(Float32Array.from([0.5, -2, 1])).map(Math.abs))).toBe(127);
  });

  it('spherical k-means is deterministic and finds well separated clusters', () => {
    const points = clustered(400, 24, 8).map(unitVector);
    const a = sphericalKMeans(points, 8, { seed: 5, iterations: 8 });
    const b = sphericalKMeans(points, 8, { seed: 5, iterations: 8 });
    expect(a.map((c) => [...c])).toEqual(b.map((c) => [...c]));
    // Points of one generating cluster end up sharing a centroid (mostly).
    let agree = 0;
    for (let i = 8; i < points.length; i++) {
      if (nearestCentroid(points[i]!, a) === nearestCentroid(points[i % 8]!, a)) agree++;
    }
    expect(agree / (points.length - 8)).toBeGreaterThan(0.9);
    expect(sphericalKMeans([], 4)).toEqual([]);
    expect(sphericalKMeans(points.slice(0, 3), 10)).toHaveLength(3);
  });

  it('a trained quantizer assigns every vector to a list, and probing all lists covers every list', () => {
    const points = clustered(1200, 32, 20);
    const q = trainIvf(points, { lists: 64, seed: 2 });
    expect(q.leaves.length).toBeGreaterThan(1);
    expect(q.leaves.length).toBeLessThanOrEqual(64);
    expect(q.leafParent).toHaveLength(q.leaves.length);
    for (const p of points.slice(0, 200)) {
      const list = assignList(q, p);
      expect(list).toBeGreaterThanOrEqual(0);
      expect(list).toBeLessThan(q.leaves.length);
    }
    const all = probeLists(q, points[0]!, q.leaves.length);
    expect(new Set(all).size).toBe(q.leaves.length);
    // A vector's own list is among the few nearest lists of that vector.
    let hit = 0;
    for (const p of points.slice(0, 200)) if (probeLists(q, unitVector(p), 4).includes(assignList(q, p))) hit++;
    expect(hit / 200).toBeGreaterThan(0.9);
  });

  it('probing a few lists finds most of the exact top 10', () => {
    const points = clustered(3000, 32, 30, 9);
    const q = trainIvf(points, { lists: 100, seed: 1 });
    const lists = points.map((p) => assignList(q, p));
    let found = 0;
    let total = 0;
    for (const query of clustered(20, 32, 30, 11)) {
      const exact = points
        .map((p, i) => ({ i, s: cosine(query, p) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      const probed = new Set(probeLists(q, unitVector(query), 12));
      for (const e of exact) if (probed.has(lists[e.i]!)) found++;
      total += exact.length;
    }
    expect(found / total).toBeGreaterThan(0.9);
  });

  it('probeLists gives the lists of the plain dot-product ranking, in order, for dense, sparse and tied queries', () => {
    const points = clustered(1500, 48, 25, 13);
    const q = trainIvf(points, { lists: 80, seed: 4 });
    // The ranking spelled out: every leaf's dot product, best first, ties by lower list.
    const plain = (query: Float32Array, n: number) =>
      q.leaves
        .map((leaf, i) => ({ i, d: dot(query, leaf) }))
        .sort((a, b) => b.d - a.d || a.i - b.i)
        .slice(0, n)
        .map((s) => s.i);
    const r = seeded(31);
    const dense = clustered(30, 48, 25, 17).map(unitVector);
    const sparse = Array.from({ length: 30 }, () => {
      const v = new Float32Array(48);
      for (let k = 0; k < 5; k++) v[Math.floor((r() + 0.5) * 48)] = r();
      return v;
    });
    for (const query of [...dense, ...sparse]) {
      for (const n of [1, 4, 12, q.leaves.length]) expect(probeLists(q, query, n)).toEqual(plain(query, n));
    }
    // A zero query ties every leaf: the lowest lists come first.
    expect(probeLists(q, new Float32Array(48), 3)).toEqual([0, 1, 2]);
    // A split makes a new quantizer; its appended leaf is probed.
    const v = unitVector(points[3]!);
    const grown = { ...q, leaves: [...q.leaves, v], leafParent: [...q.leafParent, 0] };
    expect(probeLists(grown, v, 1)).toEqual([q.leaves.length]);
  });

  it("a dense query's int8 first cut picks exactly the lists of the full scan over many close leaves", () => {
    // 1,200 leaves packed around 40 directions (neighbouring leaves' similarities differ by little), probed as the
    // store does at 100,000 rows (nprobe 32 and more): the shortlist must never drop a list the full scan keeps.
    const leaves = clustered(1200, 96, 40, 21).map(unitVector);
    const q = { dimension: 96, coarse: [leaves[0]!], leaves, leafParent: leaves.map(() => 0) };
    const plain = (query: Float32Array, n: number) =>
      leaves
        .map((leaf, i) => ({ i, d: dot(query, leaf) }))
        .sort((a, b) => b.d - a.d || a.i - b.i)
        .slice(0, n)
        .map((s) => s.i);
    const queries = clustered(60, 96, 40, 23).map((v, i) => (i % 2 === 0 ? unitVector(v) : v));
    for (const query of queries) {
      for (const n of [8, 32, 64]) expect(probeLists(q, query, n)).toEqual(plain(query, n));
    }
  });

  it('splitTwo separates two groups, and refuses vectors that do not separate', () => {
    const points = clustered(200, 16, 2, 21);
    const halves = splitTwo(points, 3);
    expect(halves).not.toBeNull();
    // Points of one generating cluster (i % 2) land on one side.
    const sideOf = [halves!.side[0], halves!.side[1]];
    expect(sideOf[0]).not.toBe(sideOf[1]);
    for (let i = 0; i < points.length; i++) expect(halves!.side[i]).toBe(sideOf[i % 2]);
    for (const c of halves!.centroids) expect(Math.abs(Math.sqrt(dot(c, c)) - 1)).toBeLessThan(1e-5);
    const same = Array.from({ length: 20 }, () => Float32Array.from([1, 2, 3]));
    expect(splitTwo(same)).toBeNull();
    expect(splitTwo(points.slice(0, 1))).toBeNull();
  });

  it('assignList considers a leaf appended under its parent (as a split adds it)', () => {
    const points = clustered(600, 16, 6, 5);
    const q = trainIvf(points, { lists: 9, seed: 2 });
    const v = unitVector(points[7]!);
    const own = assignList(q, v);
    // A copy of the quantizer with v itself appended as a new leaf under own's parent: v now goes there.
    const grown = { ...q, leaves: [...q.leaves, v], leafParent: [...q.leafParent, q.leafParent[own]!] };
    expect(assignList(grown, v)).toBe(q.leaves.length);
    expect(assignList(q, v)).toBe(own);
  });
});
