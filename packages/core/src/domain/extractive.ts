/**
 * Which sentences an extractive summary keeps (docs/conversations.md): a greedy choice within a token budget that
 * values a sentence for the words and the names, numbers and dates it adds that no chosen sentence holds yet, for how
 * central it is to the conversation (closeness of its vector to the centroid, or the weight of the words it shares
 * with other sentences) and for stating a decision. Pure functions; O(candidates × chosen) steps.
 */
import { cosine } from './ranking.js';
import { isFiller } from './salient.js';
import { isStopword, stem, tokenize } from './text.js';

export interface ExtractCandidate {
  /** Tokens of the sentence as kept (and a separating space). */
  tokens: number;
  /** The message it comes from: the first sentence kept of a message also pays for its line's head… */
  group?: number;
  /** …of this many tokens. */
  head?: number;
  /** Distinct content-word stems (contentTerms). */
  terms: readonly string[];
  /** Names, numbers and dates (salientItems). */
  items: readonly string[];
  decision: boolean;
  /** A line of an earlier summary: it was chosen once already. */
  earlier: boolean;
  /** Its embedding, when the sentence was embedded. */
  vector?: Float32Array | null;
}

/** Distinct stems of the words of `text` that are neither stop words nor small talk. */
export function contentTerms(text: string): string[] {
  const out = new Set<string>();
  for (const t of tokenize(text)) if (t.length > 1 && !isStopword(t) && !isFiller(t)) out.add(stem(t));
  return [...out];
}

/** Values scaled to 0..1 (all 0 when they are all equal). */
function unitScale(values: number[]): number[] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return values.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0));
}

/**
 * Keyword centrality: the words a sentence shares with the rest of the conversation, each weighted by how often it
 * recurs and how specific it still is (log(1 + df) · log(1 + n / df); a word said once adds nothing), over the square
 * root of the sentence's word count. Scaled to 0..1.
 */
export function keywordCentrality(candidates: readonly Pick<ExtractCandidate, 'terms'>[]): number[] {
  const df = new Map<string, number>();
  for (const c of candidates) for (const t of c.terms) df.set(t, (df.get(t) ?? 0) + 1);
  const n = candidates.length;
  return unitScale(
    candidates.map((c) => {
      let sum = 0;
      for (const t of c.terms) {
        const d = df.get(t)!;
        if (d > 1) sum += Math.log1p(d) * Math.log1p(n / d);
      }
      return c.terms.length === 0 ? 0 : sum / Math.sqrt(c.terms.length);
    }),
  );
}

/** Vector centrality: cosine to the mean of the (normalised) vectors, scaled to 0..1; keyword centrality where a sentence has no vector. */
function centrality(candidates: readonly ExtractCandidate[], byKeyword: number[]): number[] {
  const vectors = candidates.map((c) => c.vector ?? null);
  const first = vectors.find((v) => v !== null);
  if (!first) return byKeyword;
  const centroid = new Float32Array(first.length);
  for (const v of vectors) {
    if (!v) continue;
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < centroid.length; i++) centroid[i]! += (v[i] ?? 0) / norm;
  }
  const byVector = unitScale(vectors.map((v) => (v ? cosine(v, centroid) : 0)));
  return vectors.map((v, i) => (v ? byVector[i]! : byKeyword[i]!));
}

/** How much each part of a sentence's value weighs. */
export const EXTRACT_WEIGHTS = {
  /** The most a content word weighs (the word the conversation comes back to most). */
  word: 0.5,
  /** A name, number or date weighs `item` plus `itemRarity` × its rarity (1 when said once, towards 0 when said everywhere). */
  item: 0.5,
  itemRarity: 1.5,
  /** The value of a sentence's new words and items is multiplied by `base + central` × centrality… */
  base: 0.6,
  central: 0.4,
  /** …plus this for a decision, and this for a line of an earlier summary. */
  decision: 0.3,
  earlier: 0.2,
  /** Value per token^costPower, a sentence costing at least `minCost` tokens: long sentences pay for their length. */
  costPower: 0.8,
  minCost: 8,
  /** Closer than this (cosine of vectors) to a chosen sentence: a repeat, never chosen. */
  repeat: 0.95,
} as const;

/** The weight of each concept (content word or item) of the candidates: how much covering it is worth. */
function conceptWeights(candidates: readonly ExtractCandidate[]): Map<string, number> {
  const n = candidates.length;
  const df = new Map<string, number>();
  for (const c of candidates) {
    for (const t of c.terms) df.set(t, (df.get(t) ?? 0) + 1);
    for (const t of c.items) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const weights = new Map<string, number>();
  let top = 0;
  const words: [string, number][] = [];
  for (const c of candidates) {
    for (const t of c.terms) {
      if (weights.has(t)) continue;
      const d = df.get(t)!;
      // Words the conversation comes back to weigh most; words said everywhere less, words said once half.
      const w = Math.log1p(d) * Math.log1p(n / d) * (d > 1 ? 1 : 0.5);
      weights.set(t, w);
      words.push([t, w]);
      top = Math.max(top, w);
    }
  }
  // A word weighs at most `word`: less than any name, number or date.
  for (const [t, w] of words) weights.set(t, top > 0 ? (EXTRACT_WEIGHTS.word * w) / top : 0);
  const rarity = (d: number) => (n > 1 ? Math.log1p(n / d) / Math.log1p(n) : 1);
  const w = EXTRACT_WEIGHTS;
  for (const c of candidates) for (const t of c.items) weights.set(t, w.item + w.itemRarity * rarity(df.get(t)!));
  return weights;
}

/**
 * The candidates an extractive summary keeps, as indexes in ascending (conversation) order, their costs summing to at
 * most `budget`. Greedy concept coverage: a sentence is worth the weights of the words and items it holds that no
 * chosen sentence holds yet, times its centrality (plus a decision's bonus); each step takes the best worth per
 * token^0.8 among the sentences that still fit. A sentence with no content word and no item is never taken, nor a
 * repeat of a chosen one.
 */
export function chooseExtract(candidates: readonly ExtractCandidate[], budget: number): number[] {
  const w = EXTRACT_WEIGHTS;
  const central = centrality(candidates, keywordCentrality(candidates));
  const weights = conceptWeights(candidates);
  const factor = candidates.map(
    (c, i) => w.base + w.central * central[i]! + (c.decision ? w.decision : 0) + (c.earlier ? w.earlier : 0),
  );
  const open = candidates.map((c) => c.terms.length > 0 || c.items.length > 0);
  const covered = new Set<string>();
  const started = new Set<number>();
  const price = (c: ExtractCandidate) => c.tokens + (c.group === undefined || started.has(c.group) ? 0 : (c.head ?? 0));
  const chosen: number[] = [];
  let left = budget;
  for (;;) {
    let best = -1;
    let bestRatio = 0;
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i]!;
      const tokens = price(c);
      if (!open[i] || tokens > left) continue;
      let gain = 0;
      for (const t of c.terms) if (!covered.has(t)) gain += weights.get(t)!;
      for (const t of c.items) if (!covered.has(t)) gain += weights.get(t)!;
      const ratio = (gain * factor[i]!) / Math.max(w.minCost, tokens) ** w.costPower;
      if (ratio > bestRatio) {
        bestRatio = ratio;
        best = i;
      }
    }
    if (best < 0) break;
    const pick = candidates[best]!;
    chosen.push(best);
    open[best] = false;
    left -= price(pick);
    if (pick.group !== undefined) started.add(pick.group);
    for (const t of pick.terms) covered.add(t);
    for (const t of pick.items) covered.add(t);
    if (pick.vector) {
      for (let i = 0; i < candidates.length; i++) {
        const v = candidates[i]!.vector;
        if (open[i] && v && cosine(v, pick.vector) >= w.repeat) open[i] = false;
      }
    }
  }
  return chosen.sort((a, b) => a - b);
}
