/**
 * The tokens SQLite's FTS5 `porter unicode61` tokenizer makes of a text, computed in JavaScript so that the pruned
 * keyword index (`keyword/index.ts`) holds the same terms as the FTS5 index and scores like its bm25():
 *
 * - unicode61 on ASCII text: a token is a run of ASCII letters and digits, lower-cased. Text with other characters
 *   is tokenized by FTS5 itself (its Unicode tables — categories, case folding, diacritics — are not worth copying;
 *   see `fts5-tokens.ts`).
 * - porter: Martin Porter's 1980 stemmer as FTS5 runs it, on the token's UTF-8 bytes (non-ASCII bytes count as
 *   consonants); tokens shorter than 3 or longer than 64 bytes are kept as they are.
 *
 * The equivalence is checked by a test against FTS5 itself (fts5vocab) over real and synthetic text.
 */

function isAsciiWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** True when the text is all ASCII: then `asciiTokens` is exactly FTS5's tokenizer; otherwise ask FTS5. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

/** The unicode61 tokens of an ASCII text: runs of letters and digits, lower-cased. */
export function asciiTokens(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const word = i < text.length && isAsciiWordChar(text.charCodeAt(i));
    if (word && start < 0) start = i;
    else if (!word && start >= 0) {
      out.push(text.slice(start, i).toLowerCase());
      start = -1;
    }
  }
  return out;
}

// --- Porter stemmer over a byte string (one JS char per UTF-8 byte) ---

function isVowel(c: string | undefined, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');
}

/** Past the first vowel-consonant sequence of w[from, to): the index after it, or 0 when there is none. */
function gobbleVC(w: string, from: number, to: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = from;
  for (; i < to; i++) {
    consonant = !isVowel(w[i], consonant);
    if (!consonant) break;
  }
  for (i++; i < to; i++) {
    consonant = !isVowel(w[i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** m > 0 for the stem w[0, n). */
function mGt0(w: string, n: number): boolean {
  return gobbleVC(w, 0, n, false) !== 0;
}

/** m > 1 for the stem w[0, n). */
function mGt1(w: string, n: number): boolean {
  const at = gobbleVC(w, 0, n, false);
  return at !== 0 && gobbleVC(w, at, n, true) !== 0;
}

/** m = 1 for the stem w[0, n). */
function mEq1(w: string, n: number): boolean {
  const at = gobbleVC(w, 0, n, false);
  return at !== 0 && gobbleVC(w, at, n, true) === 0;
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function oStar(w: string, n: number): boolean {
  const last = w[n - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(w[i], consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 0xff;
  }
  return (mask & 7) === 5;
}

/** *v*: the stem holds a vowel (y counts after the first letter). */
function hasVowel(w: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(w[i], i > 0)) return true;
  return false;
}

type Cond = (w: string, n: number) => boolean;
/** [suffix, replacement, condition on the stem] — tried in order among those ending the word; the first match decides. */
type Rule = readonly [string, string, Cond | null];

const S_OR_T_MGT1: Cond = (w, n) => (w[n - 1] === 's' || w[n - 1] === 't') && mGt1(w, n);

const STEP2: Rule[] = [
  ['ational', 'ate', mGt0],
  ['tional', 'tion', mGt0],
  ['enci', 'ence', mGt0],
  ['anci', 'ance', mGt0],
  ['izer', 'ize', mGt0],
  ['logi', 'log', mGt0],
  ['bli', 'ble', mGt0],
  ['alli', 'al', mGt0],
  ['entli', 'ent', mGt0],
  ['eli', 'e', mGt0],
  ['ousli', 'ous', mGt0],
  ['ization', 'ize', mGt0],
  ['ation', 'ate', mGt0],
  ['ator', 'ate', mGt0],
  ['alism', 'al', mGt0],
  ['iveness', 'ive', mGt0],
  ['fulness', 'ful', mGt0],
  ['ousness', 'ous', mGt0],
  ['aliti', 'al', mGt0],
  ['iviti', 'ive', mGt0],
  ['biliti', 'ble', mGt0],
];
const STEP3: Rule[] = [
  ['ical', 'ic', mGt0],
  ['ness', '', mGt0],
  ['icate', 'ic', mGt0],
  ['iciti', 'ic', mGt0],
  ['ful', '', mGt0],
  ['ative', '', mGt0],
  ['alize', 'al', mGt0],
];
const STEP4: Rule[] = [
  ['al', '', mGt1],
  ['ance', '', mGt1],
  ['ence', '', mGt1],
  ['er', '', mGt1],
  ['ic', '', mGt1],
  ['able', '', mGt1],
  ['ible', '', mGt1],
  ['ant', '', mGt1],
  ['ement', '', mGt1],
  ['ment', '', mGt1],
  ['ent', '', mGt1],
  ['ion', '', S_OR_T_MGT1],
  ['ou', '', mGt1],
  ['ism', '', mGt1],
  ['ate', '', mGt1],
  ['iti', '', mGt1],
  ['ous', '', mGt1],
  ['ive', '', mGt1],
  ['ize', '', mGt1],
];

/**
 * Apply the first rule whose suffix ends the word (and is shorter than it), among the rules sharing the word's
 * second-to-last letter — FTS5 groups its rules by that letter and tries only that group. Returns the new word,
 * and whether a rule's suffix matched and its condition held.
 */
function applyRules(w: string, rules: readonly Rule[]): [string, boolean] {
  const key = w[w.length - 2];
  for (const [suffix, replacement, cond] of rules) {
    if (suffix[suffix.length - 2] !== key) continue;
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const n = w.length - suffix.length;
      if (cond === null || cond(w, n)) return [w.slice(0, n) + replacement, true];
      return [w, false];
    }
  }
  return [w, false];
}

function step1a(w: string): string {
  const n = w.length;
  if (w[n - 1] !== 's') return w;
  if (w[n - 2] === 'e') {
    if ((n > 4 && w[n - 4] === 's' && w[n - 3] === 's') || (n > 3 && w[n - 3] === 'i')) return w.slice(0, n - 2);
    return w.slice(0, n - 1);
  }
  if (w[n - 2] !== 's') return w.slice(0, n - 1);
  return w;
}

/** Step 1b: eed → ee (m > 0); ed, ing removed when the stem has a vowel. Returns whether ed/ing went. */
function step1b(w: string): [string, boolean] {
  const n = w.length;
  const key = w[n - 2];
  if (key === 'e') {
    if (n > 3 && w.endsWith('eed')) return mGt0(w, n - 3) ? [`${w.slice(0, n - 3)}ee`, false] : [w, false];
    if (n > 2 && w.endsWith('ed')) return hasVowel(w, n - 2) ? [w.slice(0, n - 2), true] : [w, false];
  } else if (key === 'n') {
    if (n > 3 && w.endsWith('ing')) return hasVowel(w, n - 3) ? [w.slice(0, n - 3), true] : [w, false];
  }
  return [w, false];
}

const STEP1B2: Rule[] = [
  ['at', 'ate', null],
  ['bl', 'ble', null],
  ['iz', 'ize', null],
];

/** The porter stem of one unicode61 token, as FTS5 computes it. */
export function porterStem(token: string): string {
  const ascii = !/[^\x00-\x7f]/.test(token);
  const bytes = ascii ? token : Buffer.from(token, 'utf8').toString('latin1');
  if (bytes.length > 64 || bytes.length < 3) return token;
  const [afterStep1b, removed] = step1b(step1a(bytes));
  let w = afterStep1b;
  if (removed) {
    let replaced: boolean;
    [w, replaced] = applyRules(w, STEP1B2);
    if (!replaced) {
      const c = w[w.length - 1];
      if (!isVowel(c, false) && c !== 'l' && c !== 's' && c !== 'z' && c === w[w.length - 2]) w = w.slice(0, -1);
      else if (mEq1(w, w.length) && oStar(w, w.length)) w += 'e';
    }
  }
  if (w[w.length - 1] === 'y' && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  [w] = applyRules(w, STEP2);
  [w] = applyRules(w, STEP3);
  [w] = applyRules(w, STEP4);
  if (w[w.length - 1] === 'e') {
    const n = w.length - 1;
    if (mGt1(w, n) || (mEq1(w, n) && !oStar(w, n))) w = w.slice(0, n);
  }
  if (w.length > 1 && w[w.length - 1] === 'l' && w[w.length - 2] === 'l' && mGt1(w, w.length - 1)) w = w.slice(0, -1);
  return ascii ? w : Buffer.from(w, 'latin1').toString('utf8');
}

/** Stems already computed: a vocabulary repeats, and stemming is a tenth of index upkeep. Emptied when full. */
const STEMS = new Map<string, string>();
const STEMS_MAX = 100_000;

function cachedStem(token: string): string {
  let stem = STEMS.get(token);
  if (stem === undefined) {
    if (STEMS.size >= STEMS_MAX) STEMS.clear();
    stem = porterStem(token);
    STEMS.set(token, stem);
  }
  return stem;
}

/** The terms FTS5 `porter unicode61` indexes for an ASCII `text`, in order (repeats kept). */
export function asciiKeywordTokens(text: string): string[] {
  return asciiTokens(text).map(cachedStem);
}
