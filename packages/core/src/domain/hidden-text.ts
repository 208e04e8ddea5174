/**
 * Characters that render as nothing. A model reads them; a person does not see them. They can carry a hidden message
 * (Unicode tag characters spell ASCII invisibly, runs of variation selectors spell bytes), reorder what is shown (bidi
 * controls) or split a credential so that no rule sees it (a zero-width space inside a key).
 *
 * The set is derived from Unicode properties, not listed by hand: every Default_Ignorable_Code_Point and every format
 * character (General_Category Cf), less the prepended concatenation marks, which are format characters that do render
 * (the Arabic number sign and its kin). Three uses are legitimate and kept where text is kept:
 * - a zero-width joiner or non-joiner between two visible characters (emoji sequences, Indic and Persian shaping);
 * - one variation selector directly after a visible character (text or emoji presentation, ideographic variants);
 * - a well-formed emoji tag sequence: the black flag U+1F3F4, 1–32 tag characters U+E0020–E007E, then U+E007F
 *   (the flags of England, Scotland and Wales).
 * Everything else in the set is hidden. Pure, linear in the length of the text.
 */

// Default ignorable or format, less the visible prepended concatenation marks (v-flag set difference).
const HIDDEN_CLASS = String.raw`[[\p{Default_Ignorable_Code_Point}\p{Cf}]--[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]]`;
const HIDDEN_TEST = new RegExp(HIDDEN_CLASS, 'v');
const HIDDEN_ALL = new RegExp(HIDDEN_CLASS, 'gv');

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

const isVariationSelector = (cp: number): boolean =>
  (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f;
const isTagLetter = (cp: number): boolean => cp >= 0xe0020 && cp <= 0xe007e;
const isSpace = (cp: number): boolean =>
  cp <= 0x20 || cp === 0x85 || cp === 0xa0 || (cp >= 0x1680 && /\s/u.test(String.fromCodePoint(cp)));

/** True when a text holds no character of the hidden set at all (the common case, answered by one regex test). */
export function hasNoIgnorable(text: string): boolean {
  return !HIDDEN_TEST.test(text);
}

/** Whether a code point is in the hidden set (before the legitimate uses are taken out). */
export function isIgnorableCodePoint(cp: number): boolean {
  // Nothing below the soft hyphen is in the set; most text never leaves this branch.
  return cp >= 0xad && HIDDEN_TEST.test(String.fromCodePoint(cp));
}

/** One hidden character: where it is (UTF-16 offset, 1-based line and column) and what it is. */
export interface HiddenCharacter {
  index: number;
  /** UTF-16 length (2 for a character outside the Basic Multilingual Plane). */
  length: number;
  codePoint: number;
  line: number;
  column: number;
}

/**
 * The hidden characters of a text, in order (see the module comment for what is kept). `limit` stops the walk after
 * that many findings (a refusal names a few, not thousands).
 */
export function findHidden(text: string, limit = Number.POSITIVE_INFINITY): HiddenCharacter[] {
  const out: HiddenCharacter[] = [];
  if (hasNoIgnorable(text)) return out;
  let line = 1;
  let lineStart = 0;
  // The previous code point that was kept and visible (0 at the start or after white space).
  let prevVisible = 0;
  let prevWasSelector = false;
  let i = 0;
  while (i < text.length && out.length < limit) {
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    if (cp === 10) {
      line++;
      lineStart = i + 1;
    }
    if (cp === BLACK_FLAG) {
      const end = tagSequenceEnd(text, i + len);
      if (end > 0) {
        prevVisible = cp;
        prevWasSelector = false;
        i = end;
        continue;
      }
    }
    if (!isIgnorableCodePoint(cp)) {
      prevVisible = isSpace(cp) ? 0 : cp;
      prevWasSelector = false;
      i += len;
      continue;
    }
    let keep = false;
    if (cp === ZWJ || cp === ZWNJ) {
      const next = i + len < text.length ? text.codePointAt(i + len)! : 0;
      keep = prevVisible !== 0 && next !== 0 && !isSpace(next) && !isIgnorableCodePoint(next);
    } else if (isVariationSelector(cp)) {
      keep = prevVisible !== 0 && !prevWasSelector;
    }
    if (keep) {
      prevWasSelector = isVariationSelector(cp);
    } else {
      // A removed character leaves the state as it was: what follows is judged against what stays.
      out.push({ index: i, length: len, codePoint: cp, line, column: i - lineStart + 1 });
    }
    i += len;
  }
  return out;
}

/** After a black flag at `from`: the end of a well-formed tag sequence (tags then the cancel tag), or 0. */
function tagSequenceEnd(text: string, from: number): number {
  let i = from;
  let n = 0;
  while (i < text.length && n <= 32) {
    const cp = text.codePointAt(i)!;
    if (cp === CANCEL_TAG) return n > 0 ? i + 2 : 0;
    if (!isTagLetter(cp)) return 0;
    n++;
    i += 2;
  }
  return 0;
}

/** The text without its hidden characters (the legitimate joiners, selectors and flag tags kept). */
export function stripHidden(text: string): string {
  const found = findHidden(text);
  if (found.length === 0) return text;
  let out = '';
  let at = 0;
  for (const h of found) {
    out += text.slice(at, h.index);
    at = h.index + h.length;
  }
  return out + text.slice(at);
}

/** Every character of the hidden set removed, the legitimate uses too: the form the secret rules read. */
export function removeAllIgnorable(text: string): string {
  return hasNoIgnorable(text) ? text : text.replace(HIDDEN_ALL, '');
}

/** What a hidden character is, for a message: `U+E0041 (a tag character)`. */
export function describeHidden(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  let what = 'an invisible formatting character';
  if (cp >= 0xe0000 && cp <= 0xe007f) what = 'a Unicode tag character, which can spell hidden text';
  else if (isVariationSelector(cp)) what = 'a variation selector out of place';
  else if (
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x61c
  )
    what = 'a bidirectional control, which reorders what is shown';
  else if (cp === 0x200b || cp === 0x200c || cp === 0x200d || cp === 0x2060 || cp === 0xfeff)
    what = 'a zero-width character';
  else if (cp === 0xad) what = 'a soft hyphen';
  else if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) what = 'a Hangul filler';
  else if (cp === 0x34f) what = 'a combining grapheme joiner';
  return `${hex} (${what})`;
}

/** A sentence naming the first hidden characters of a text and where they are, or undefined when it has none. */
export function hiddenProblem(text: string): string | undefined {
  const found = findHidden(text, 4);
  if (found.length === 0) return undefined;
  const shown = found
    .slice(0, 3)
    .map((h) => `${describeHidden(h.codePoint)} at line ${h.line}, column ${h.column}`)
    .join('; ');
  return `it holds characters that render as nothing: ${shown}${found.length > 3 ? ' and more' : ''}`;
}
