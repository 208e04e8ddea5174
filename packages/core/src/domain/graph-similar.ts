/**
 * The "similar name" step of entity resolution (docs/graph.md): two resolution keys (`entityKey`) that differ only
 * in a way that keeps the name — written together or apart ("open ai" / "openai"), a title more
 * ("dr emily stone" / "emily stone"), one slip of spelling inside a long word ("philadephia"), or an
 * acronym of the words ("ibm" / "international business machines"). Look-alikes stay apart: another surname
 * ("alex chen" / "alex wong"), a short name one letter off ("mark" / "mary", "dan" / "dana"), a first name alone
 * against a full name ("alex" / "alex chen": which Alex?). Precision first: a wrong merge mixes two people's facts,
 * a missed one only leaves two entries (and `graph-merge` joins them). Every check is linear in the keys' lengths
 * (the spelling check is bounded: one edit at most).
 */

/** Titles and honorifics that do not change who a name means. */
const HONORIFICS = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'professor',
  'sir',
  'dame',
  'lord',
  'lady',
  'rev',
  'fr',
  'jr',
  'sr',
]);

/** The shortest word a single slip of spelling may change (shorter first names one letter apart are other names). */
const MIN_SLIP_LENGTH = 6;
/** The fewest letters an acronym needs to stand for its words. */
const MIN_ACRONYM = 3;

/** How two keys are one name, or null when they are not (or are the same key: that is the `name` step). */
export type SimilarKind = 'spacing' | 'honorific' | 'spelling' | 'acronym';

const firstDifference = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** Whether `a` and `b` are within one edit (insert, delete, substitute or swap two neighbours); linear time. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  const i = firstDifference(a, b);
  if (a.length === b.length) {
    // One substitution, or a swap of two neighbours.
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return long.slice(i + 1) === short.slice(i);
}

const words = (key: string) => key.split(' ').filter((w) => w.length > 0);

/** The words that name: honorifics dropped. */
const core = (ws: readonly string[]) => ws.filter((w) => !HONORIFICS.has(w));

/** The acronym of several words: their first letters. */
const initials = (ws: readonly string[]) => ws.map((w) => w[0] ?? '').join('');

/** How two resolution keys are one name (see the file's comment), or null. */
export function similarKeys(a: string, b: string): SimilarKind | null {
  if (a === b || a.length === 0 || b.length === 0) return null;
  if (a.replaceAll(' ', '') === b.replaceAll(' ', '')) return 'spacing';
  const wa = words(a);
  const wb = words(b);
  const ca = core(wa);
  const cb = core(wb);
  if (ca.length >= 2 && ca.join(' ') === cb.join(' ')) {
    // The same two or more words once titles are set aside, and no titles that contradict ("mr john smith" / "mrs
    // john smith" stay apart). One word alone is too little ("dr smith" / "smith": which Smith?). Initials are
    // words: "michael b jordan" is not "michael jordan".
    const ea = wa.filter((w) => HONORIFICS.has(w));
    const eb = wb.filter((w) => HONORIFICS.has(w));
    if (ea.length === 0 || eb.length === 0 || ea.join(' ') === eb.join(' ')) return 'honorific';
    return null;
  }
  if (wa.length === wb.length) {
    let differing = -1;
    for (let i = 0; i < wa.length; i++) {
      if (wa[i] === wb[i]) continue;
      if (differing !== -1) return null;
      differing = i;
    }
    if (differing === -1) return null;
    const x = wa[differing]!;
    const y = wb[differing]!;
    const shorter = Math.min(x.length, y.length);
    // A slip inside the word: its ending is where names and places change ("gabriel" / "gabriela", "pittsburg" /
    // "pittsburgh", "frederick" / "frederica").
    if (shorter >= MIN_SLIP_LENGTH && firstDifference(x, y) < shorter - 1 && withinOneEdit(x, y)) return 'spelling';
    return null;
  }
  const [one, many] = wa.length === 1 ? [wa[0]!, wb] : wb.length === 1 ? [wb[0]!, wa] : [null, null];
  if (one !== null && one.length >= MIN_ACRONYM && many.length === one.length && initials(many) === one)
    return 'acronym';
  return null;
}

/** How many letters of a key its resolution candidates share (the store reads them by key prefix). */
const PREFIX = 3;

/**
 * The key prefixes under which the keys `similarKeys` may match lie: the key's own first letters (spelling keeps
 * them unless the slip is there), the same letters with a space between, those of its words without titles (and
 * with each title before them), and, for several words, their acronym. An acronym written after its long form is
 * not found (nothing in its letters leads to the long form's key): "New York City", then "NYC", stay two.
 */
export function candidatePrefixes(key: string): string[] {
  const ws = words(key);
  const bare = core(ws).join(' ');
  const head = key.slice(0, PREFIX);
  const out = new Set<string>([head]);
  // The same letters written apart ("usa" / "u s a"): a space after the first or second letter.
  if (!head.includes(' ') && head.length === PREFIX) out.add(`${head[0]} ${head[1]}`).add(`${head.slice(0, 2)} `);
  if (bare.length > 0) {
    out.add(bare.slice(0, PREFIX));
    if (bare.includes(' ')) for (const h of HONORIFICS) out.add(`${h} ${bare.slice(0, PREFIX)}`);
  }
  if (ws.length >= MIN_ACRONYM) out.add(initials(ws));
  return [...out].filter((x) => x.length > 0);
}
