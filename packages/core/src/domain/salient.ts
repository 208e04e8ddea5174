/**
 * What an extractive summary must not lose (docs/conversations.md): the sentences of a text, and in each sentence the
 * names, numbers and dates it holds and whether it states a decision. Pure functions, each linear in its input.
 */
import { MONTH_NAMES } from './time-cue.js';

/** Sentence ends that follow a short word without ending the sentence ("Dr. Lee", "e.g. this"). */
const ABBREVIATIONS = new Set([
  'dr',
  'mr',
  'mrs',
  'ms',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'jr',
  'sr',
  'prof',
  'no',
  'approx',
]);

/**
 * The sentences of `text`: a sentence ends at `.`, `!`, `?` or `…` followed by white space (not after a known
 * abbreviation), or at a line break. A sentence longer than `maxChars` is cut at the last space before the limit
 * (a tool's output, a pasted log). Trimmed, empty ones left out. One pass over the text.
 */
export function splitSentences(text: string, maxChars = 320): string[] {
  const out: string[] = [];
  const push = (piece: string) => {
    const text = piece.trim();
    let pos = 0;
    while (text.length - pos > maxChars) {
      const space = text.lastIndexOf(' ', pos + maxChars);
      const at = space > pos + maxChars / 2 ? space : pos + maxChars;
      out.push(text.slice(pos, at).trim());
      pos = at;
    }
    const rest = text.slice(pos).trim();
    if (rest !== '') out.push(rest);
  };
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n' || c === '\r') {
      push(text.slice(start, i));
      start = i + 1;
      continue;
    }
    if (c !== '.' && c !== '!' && c !== '?' && c !== '…') continue;
    const next = text[i + 1];
    if (next !== undefined && next !== ' ' && next !== '\t' && next !== '\n' && next !== '\r') continue;
    if (c === '.') {
      // The word before the dot: a known abbreviation, or one letter ("J. Smith"), does not end the sentence.
      let w = i;
      while (w > start && /[\p{L}.]/u.test(text[w - 1]!) && i - w < 8) w--;
      const word = text.slice(w, i).toLowerCase();
      if (ABBREVIATIONS.has(word) || (word.length === 1 && /\p{Lu}/u.test(text[w]!))) continue;
    }
    push(text.slice(start, i + 1));
    start = i + 1;
  }
  push(text.slice(start));
  return out;
}

/** What one sentence holds that a summary must keep. Items are keys (`name:ada`, `number:42`, `date:may`). */
export interface SalientItems {
  items: string[];
  /** The sentence states a decision, a plan, a commitment or a requirement. */
  decision: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:['’.:/-][\p{L}\p{N}]+)*/gu;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MONTHS = new Set([...MONTH_NAMES, ...MONTH_NAMES.map((m) => m.slice(0, 3)), 'sept']);
const RELATIVE_DAYS = new Set(['yesterday', 'today', 'tomorrow', 'tonight', 'weekend']);
/** Capitalised words that name nothing: pronouns, articles, greetings, the first words of questions. */
const NOT_NAMES = new Set(
  (
    'i im ive id ill a an the this that these those it its he she we they you your my our their his her me us them ' +
    'hi hey hello hiya thanks thank yes yeah yep no nope ok okay oh wow well so but and or if then when what where who ' +
    'why how which there here do does did is are was were be can could would should will wow great sure please sorry ' +
    'also just maybe not let lets good nice cool awesome haha lol really'
  ).split(' '),
);
/** Words of small talk that say nothing a summary needs ("ok", "thanks", "haha"). */
const FILLER = new Set(
  'hi hey hello hiya thanks thank thx ok okay yeah yep yup nope wow haha hahaha lol cool great nice awesome sure bye please sorry oh ah hmm'.split(
    ' ',
  ),
);

/** True for a word of small talk (lower case). */
export function isFiller(word: string): boolean {
  return FILLER.has(word);
}

const DECISION =
  /\b(?:decided|decide|decision|agreed|agree|going to|will|won't|plan|plans|planned|planning|chose|choose|chosen|prefer|prefers|let's|must|need to|needs to|have to|has to|should|deadline|promised|promise|committed|approved|rejected|settled on|switch(?:ed)? to|from now on)\b/i;

function isDateWord(lower: string): boolean {
  return MONTHS.has(lower) || WEEKDAYS.includes(lower) || RELATIVE_DAYS.has(lower);
}

/**
 * The names, numbers and dates of one sentence, and whether it states a decision. A name is a capitalised word that
 * is no pronoun or greeting; the first word of the sentence counts only when `lowerWords` (the words the whole text
 * uses in lower case) does not hold it ("Yesterday"/"Sure" start sentences, "Melanie" does). A number is any word
 * with a digit; a date is a month, a weekday, a relative day or a number that reads as one (a year, `2023-05-08`).
 */
export function salientItems(sentence: string, lowerWords: ReadonlySet<string>): SalientItems {
  const items = new Set<string>();
  let first = true;
  for (const m of sentence.matchAll(WORD)) {
    const word = m[0];
    const lower = word.toLowerCase();
    const bare = lower.replace(/['’]s$/, '');
    const isCapitalised = /^\p{Lu}/u.test(word);
    if (/\d/.test(word)) {
      const isDate = /^(?:19|20)\d\d$/.test(word) || /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$/.test(word);
      items.add(`${isDate ? 'date' : 'number'}:${lower}`);
    } else if (
      isDateWord(lower) &&
      (isCapitalised || (lower.length > 3 && lower !== 'may')) &&
      !(first && lower === 'may')
    ) {
      items.add(`date:${MONTHS.has(lower) ? lower.slice(0, 3) : lower}`);
    } else if (isCapitalised && !NOT_NAMES.has(bare.replace(/['’.]/g, '')) && word.length > 1) {
      if (!first || !lowerWords.has(bare)) items.add(`name:${bare}`);
    }
    first = false;
  }
  return { items: [...items], decision: DECISION.test(sentence) };
}

/** The words a text uses in lower case (to tell a name that starts a sentence from a word that does). */
export function lowerCaseWords(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(WORD)) if (/^\p{Ll}/u.test(m[0])) out.add(m[0].replace(/['’]s$/, ''));
  }
  return out;
}
