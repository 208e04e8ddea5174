/** Text helpers shared by every keyword arm: query terms and an in-memory BM25. Pure functions. */

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its ' +
    'me my of on or our ours she so than that the their them then there these they this those to was we were what when where which ' +
    'who whom why will with would you your yours about also any just not no yes'
  ).split(' '),
);

const TOKEN = /[\p{L}\p{N}]+/gu;

/** True for the common function words the keyword arms leave out ("the", "and", "you"…), given in lower case. */
export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** Lower-case word tokens (letters and digits of any script). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/**
 * How many words a text has, counted without building them (the ranking needs lengths of many candidates per search):
 * runs of ASCII letters and digits, and of any non-ASCII character except white space and general punctuation — close to
 * `tokenize(text).length`, exact for ASCII text.
 */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const word =
      (c >= 97 && c <= 122) ||
      (c >= 65 && c <= 90) ||
      (c >= 48 && c <= 57) ||
      (c > 127 && c !== 160 && !(c >= 0x2000 && c <= 0x206f) && c !== 0x3000);
    if (word && !inWord) n++;
    inWord = word;
  }
  return n;
}

/**
 * Query terms for the keyword arm: distinct tokens without stop words (kept when nothing else is left),
 * in order of first appearance, at most `max` (12 by default). The terms are OR-ed by the stores.
 */
export function queryTerms(query: string, max = 12): string[] {
  const tokens = tokenize(query);
  const distinct = [...new Set(tokens)];
  const content = distinct.filter((t) => !STOPWORDS.has(t));
  return (content.length > 0 ? content : distinct).slice(0, max);
}

/** A light stemmer for the in-memory arms (plural and common verb endings), so that "deploys" meets "deploy". */
export function stem(token: string): string {
  if (token.length <= 3 || /\d/.test(token)) return token;
  if (token.endsWith('ies') && token.length > 4) return `${token.slice(0, -3)}y`;
  if (token.endsWith('sses')) return token.slice(0, -2);
  if (token.endsWith('ing') && token.length > 5) return token.slice(0, -3);
  if (token.endsWith('ed') && token.length > 4) return token.slice(0, -2);
  if (token.endsWith('s') && !token.endsWith('ss') && !token.endsWith('us')) return token.slice(0, -1);
  return token;
}

function contentStems(text: string): Set<string> {
  return new Set(queryTerms(text, Number.MAX_SAFE_INTEGER).map(stem));
}

/** The share of a query's terms (stemmed, stop words out) that a text holds: 1 = every term, 0 = none. */
export function termCoverage(query: string, text: string): number {
  const wanted = contentStems(query);
  if (wanted.size === 0) return 0;
  const held = new Set(tokenize(text).map(stem));
  let n = 0;
  for (const t of wanted) if (held.has(t)) n++;
  return n / wanted.size;
}

/** How much two texts share their terms (stemmed, stop words out): |A ∩ B| / |A ∪ B|. */
export function termOverlap(a: string, b: string): number {
  const x = contentStems(a);
  const y = contentStems(b);
  if (x.size === 0 && y.size === 0) return 0;
  let both = 0;
  for (const t of x) if (y.has(t)) both++;
  return both / (x.size + y.size - both);
}

export interface Bm25Options {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Options = { k1: 1.2, b: 0.75 };

/** A document for in-memory BM25: its id and its token list. */
export interface Bm25Doc {
  id: string;
  tokens: string[];
}

/**
 * BM25 over a small in-memory corpus, terms OR-ed (any term may match). Returns ids best first with scores > 0.
 * Statistics (document frequency, average length) are computed over `corpus`, the rows that passed the filters.
 */
export function bm25Rank(
  corpus: readonly Bm25Doc[],
  terms: readonly string[],
  options: Bm25Options = DEFAULT_BM25,
): { id: string; score: number }[] {
  const qterms = [...new Set(terms.map(stem))];
  if (qterms.length === 0 || corpus.length === 0) return [];
  const n = corpus.length;
  let totalLen = 0;
  const df = new Map<string, number>();
  const tfs: Map<string, number>[] = [];
  for (const doc of corpus) {
    totalLen += doc.tokens.length;
    const tf = new Map<string, number>();
    for (const t of doc.tokens) {
      const s = stem(t);
      tf.set(s, (tf.get(s) ?? 0) + 1);
    }
    tfs.push(tf);
    for (const q of qterms) if (tf.has(q)) df.set(q, (df.get(q) ?? 0) + 1);
  }
  const avg = totalLen / n || 1;
  const out: { id: string; score: number }[] = [];
  corpus.forEach((doc, i) => {
    const tf = tfs[i]!;
    let score = 0;
    for (const q of qterms) {
      const f = tf.get(q);
      if (!f) continue;
      const d = df.get(q) ?? 0;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      score +=
        (idf * (f * (options.k1 + 1))) / (f + options.k1 * (1 - options.b + (options.b * doc.tokens.length) / avg));
    }
    if (score > 0) out.push({ id: doc.id, score });
  });
  out.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  return out;
}
