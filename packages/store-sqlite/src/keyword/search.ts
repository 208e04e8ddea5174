/**
 * The keyword arm on the pruned index: BM25 exactly as FTS5's bm25() computes it (k1 = 1.2, b = 0.75, the same N,
 * document frequencies, lengths and average length), evaluated with MaxScore so that the work follows the top k and
 * not every chunk that matches some query term.
 *
 * MaxScore: each query term gets an upper bound of what it can add to a chunk's score (its idf times the best
 * term-frequency part among its posting blocks, from the blocks' largest tf and smallest length). Terms are ordered
 * by bound; once k chunks are held, the terms whose bounds together cannot lift a chunk past the k-th score are
 * "non-essential": chunks are enumerated from the other terms' postings only, and the non-essential terms are
 * looked up for those candidates (and skipped as soon as the remaining bounds cannot reach the k-th score).
 * Ties keep FTS5's order (by rid): chunks are visited in rid order, so a later chunk with an equal score never
 * displaces one already held.
 */
import type { Statement } from 'better-sqlite3';
import { type Postings, unpackInto } from './postings.js';

const K1 = 1.2;
const B = 0.75;

export interface ScoredRid {
  rid: number;
  score: number;
}

export interface KeywordStats {
  /** Chunks indexed (all spaces). */
  docs: number;
  /** Their tokens together. */
  tokens: number;
}

/** FTS5's idf: ln((N − n + 0.5) / (n + 0.5)), and 1e-6 when that is not positive. */
export function idf(docs: number, df: number): number {
  const v = Math.log((docs - df + 0.5) / (df + 0.5));
  return v <= 0 ? 1e-6 : v;
}

function tfPart(tf: number, dl: number, avgdl: number): number {
  return (tf * (K1 + 1.0)) / (tf + K1 * (1 - B + (B * dl) / avgdl));
}

/** Every posting of one term in one space, decoded, in rid order, with each block's bound inputs. */
export interface TermPostings extends Postings {
  /** Per block: its largest tf and its smallest chunk length. */
  maxTfs: Uint32Array;
  minDls: Uint32Array;
  /** Bytes the arrays hold (the read cache counts them). */
  bytes: number;
}

/** Read and decode every block of (`part`, `term`): one statement, contiguous arrays. */
export function readTermPostings(stmt: (sql: string) => Statement, part: string, term: string): TermPostings {
  const rows = stmt('SELECT first, n, max_tf, min_dl, data FROM kw_blocks WHERE part = ? AND term = ? ORDER BY first')
    .raw()
    .all(part, term) as [number, number, number, number, Uint8Array][];
  let total = 0;
  for (const row of rows) total += row[1];
  const out: TermPostings = {
    rids: new Float64Array(total),
    tfs: new Uint32Array(total),
    dls: new Uint32Array(total),
    owners: new Uint32Array(total),
    maxTfs: new Uint32Array(rows.length),
    minDls: new Uint32Array(rows.length),
    bytes: total * 20 + rows.length * 8,
  };
  let at = 0;
  for (const [b, [first, n, maxTf, minDl, data]] of rows.entries()) {
    unpackInto(data, first, n, out, at);
    out.maxTfs[b] = maxTf;
    out.minDls[b] = minDl;
    at += n;
  }
  return out;
}

/** A cursor over one term's postings, with its weight in the query and its idf. */
class TermCursor {
  private i = 0;
  readonly total: number;
  readonly maxPart: number;

  constructor(
    private readonly p: TermPostings,
    avgdl: number,
    readonly idf: number,
    readonly weight: number,
  ) {
    this.total = p.rids.length;
    let maxPart = 0;
    for (let b = 0; b < p.maxTfs.length; b++) {
      const bound = tfPart(p.maxTfs[b]!, p.minDls[b]!, avgdl);
      if (bound > maxPart) maxPart = bound;
    }
    this.maxPart = maxPart;
  }

  get bound(): number {
    return this.weight * this.idf * this.maxPart;
  }

  /** The rid under the cursor, or +∞ past the end. */
  rid(): number {
    return this.i < this.total ? this.p.rids[this.i]! : Number.POSITIVE_INFINITY;
  }

  next(): void {
    this.i++;
  }

  /** Move to the first posting with rid ≥ `rid` (never backwards). */
  seek(rid: number): void {
    if (this.i < this.total) this.i = seek(this.p.rids, this.i, rid);
  }

  /** What the posting under the cursor adds to its chunk's score. */
  contribution(avgdl: number): number {
    return this.weight * this.idf * tfPart(this.p.tfs[this.i]!, this.p.dls[this.i]!, avgdl);
  }

  owner(): number {
    return this.p.owners[this.i]!;
  }
}

/** The first index of `rids` at or after `from` whose rid is ≥ `rid` (galloping, then binary search). */
function seek(rids: Float64Array, from: number, rid: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < rids.length && rids[hi]! < rid) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > rids.length) hi = rids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rids[mid]! < rid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A bounded min-heap on (score, then larger rid first out): the k best (score desc, rid asc) seen so far. */
class TopK {
  readonly rids: number[] = [];
  readonly scores: number[] = [];
  constructor(readonly k: number) {}
  /** True when (score, rid) ranks below `j` (lower score, or equal score and larger rid). */
  private worse(score: number, rid: number, j: number): boolean {
    const s = this.scores[j]!;
    return score < s || (score === s && rid > this.rids[j]!);
  }
  full(): boolean {
    return this.rids.length >= this.k;
  }
  /** The k-th best score (−∞ until k are held). */
  threshold(): number {
    return this.full() ? this.scores[0]! : Number.NEGATIVE_INFINITY;
  }
  offer(rid: number, score: number): boolean {
    if (this.full()) {
      if (this.worse(score, rid, 0) || (score === this.scores[0] && rid === this.rids[0])) return false;
      this.rids[0] = rid;
      this.scores[0] = score;
      this.down(0);
      return true;
    }
    this.rids.push(rid);
    this.scores.push(score);
    let i = this.rids.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(this.scores[i]!, this.rids[i]!, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
    return true;
  }
  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.rids.length && this.worse(this.scores[l]!, this.rids[l]!, m)) m = l;
      if (r < this.rids.length && this.worse(this.scores[r]!, this.rids[r]!, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
  private swap(a: number, b: number): void {
    [this.rids[a], this.rids[b]] = [this.rids[b]!, this.rids[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }
}

/** What one evaluation did (for the bench's profile): postings read, and chunks scored. */
export interface MaxScoreWork {
  postings: number;
  scored: number;
}

/**
 * The best `k` chunks whose owner is in `owners` (0: the swarm; else an agent's code) for the query `phrases` (FTS5
 * terms in query order, repeats kept), skipping the rids in `exclude`; best first, ties by rid. `postingsOf` gives a
 * term's postings in the space searched (from the connection's read cache, or read from the file).
 */
export function maxScoreSearch(
  stmt: (sql: string) => Statement,
  postingsOf: (term: string) => TermPostings,
  owners: readonly number[],
  phrases: readonly string[],
  stats: KeywordStats,
  k: number,
  exclude: ReadonlySet<number> = new Set(),
  work?: MaxScoreWork,
): ScoredRid[] {
  if (stats.docs <= 0 || k <= 0) return [];
  const avgdl = stats.tokens / stats.docs;
  const weights = new Map<string, number>();
  for (const t of phrases) weights.set(t, (weights.get(t) ?? 0) + 1);
  const dfOf = stmt('SELECT df FROM kw_terms WHERE term = ?');
  const lists: TermCursor[] = [];
  for (const [term, weight] of weights) {
    const df = (dfOf.get(term) as { df: number } | undefined)?.df ?? 0;
    if (df <= 0) continue;
    const cursor = new TermCursor(postingsOf(term), avgdl, idf(stats.docs, df), weight);
    if (cursor.total > 0) lists.push(cursor);
  }
  if (lists.length === 0) return [];
  // Ascending bounds; prefix[i] = the bounds of lists[0..i) together.
  lists.sort((a, b) => a.bound - b.bound);
  const prefix = [0];
  for (const l of lists) prefix.push(prefix[prefix.length - 1]! + l.bound);
  // Bounds are compared with a margin so that rounding never prunes a chunk that could enter.
  const slack = (x: number) => x * (1 + 1e-9) + 1e-12;
  const top = new TopK(k);
  let essential = 0;
  const visibleA = owners[0] ?? -2;
  const visibleB = owners[1] ?? visibleA;
  for (;;) {
    // The next candidate: the smallest rid at the essential lists' cursors.
    let rid = Number.POSITIVE_INFINITY;
    for (let j = essential; j < lists.length; j++) {
      const r = lists[j]!.rid();
      if (r < rid) rid = r;
    }
    if (rid === Number.POSITIVE_INFINITY) break;
    let score = 0;
    let owner = -1;
    for (let j = essential; j < lists.length; j++) {
      const l = lists[j]!;
      if (l.rid() === rid) {
        owner = l.owner();
        score += l.contribution(avgdl);
        l.next();
      }
    }
    // Another agent's chunk (the owner is the same in every list of the chunk).
    if (owner !== visibleA && owner !== visibleB) continue;
    if (exclude.has(rid)) continue;
    const theta = top.threshold();
    // Non-essential terms, largest bound first, while they can still lift the chunk past the k-th score.
    let j = essential - 1;
    for (; j >= 0; j--) {
      if (slack(score + prefix[j + 1]!) < theta) break;
      const l = lists[j]!;
      l.seek(rid);
      if (l.rid() === rid) score += l.contribution(avgdl);
    }
    if (j >= 0) continue;
    if (work) work.scored++;
    if (top.offer(rid, score) && top.full()) {
      const t = top.threshold();
      while (essential < lists.length && slack(prefix[essential + 1]!) < t) essential++;
    }
  }
  if (work) for (const l of lists) work.postings += l.total;
  const out = top.rids.map((r, i) => ({ rid: r, score: top.scores[i]! }));
  out.sort((a, b) => b.score - a.score || a.rid - b.rid);
  return out;
}

/**
 * A chunk's score summed in query order, as FTS5 sums it (MaxScore adds the terms in bound order, which can differ
 * in the last bit): the final ranking of the few chunks returned uses these.
 */
export function exactScores(
  stmt: (sql: string) => Statement,
  rids: readonly number[],
  phrases: readonly string[],
  stats: KeywordStats,
): Map<number, number> {
  const out = new Map<number, number>();
  if (rids.length === 0) return out;
  const avgdl = stats.tokens / stats.docs;
  const rows = stmt(
    'SELECT k.rid AS rid, k.dl AS dl, k.terms AS terms FROM json_each(?) j CROSS JOIN kw_docs k ON k.rid = j.value',
  ).all(JSON.stringify(rids)) as { rid: number; dl: number; terms: string }[];
  const dfOf = stmt('SELECT df FROM kw_terms WHERE term = ?');
  const idfs = phrases.map((t) => {
    const df = (dfOf.get(t) as { df: number } | undefined)?.df ?? 0;
    return df > 0 ? idf(stats.docs, df) : 0;
  });
  for (const row of rows) {
    const tf = new Map<string, number>();
    const parts = row.terms.split(' ');
    for (let i = 0; i < parts.length; i += 2) tf.set(parts[i]!, Number(parts[i + 1]));
    let score = 0;
    for (const [i, t] of phrases.entries()) {
      const f = tf.get(t) ?? 0;
      score += idfs[i]! * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * row.dl) / avgdl)));
    }
    out.set(row.rid, score);
  }
  return out;
}
