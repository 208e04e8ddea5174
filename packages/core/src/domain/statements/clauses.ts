/**
 * Clauses of a message and the pieces of one: where it starts, its object, its third-person text and the dates in
 * it.
 */
import type { SaidTime } from '../said-time.js';
import type { Clause, Word } from './types.js';
import {
  ADVERBS,
  asksAt,
  CLAUSE_BREAK,
  DETERMINERS,
  DIETS,
  DROPPED_I_VERBS,
  EMPTY_OBJECT,
  FILLERS,
  invertedAt,
  isLaugh,
  isName,
  OBJECT_END,
  OCCUPATIONS,
  PERSONS,
  PETS,
  QUESTION_WORDS,
  SENTENCE_END,
  SUBJECTS,
  singular,
  TAIL_FILLERS,
  TAIL_PAIRS,
  TAIL_TRIPLES,
  THIRD_PARTY,
  TRAILING,
  thirdPerson,
} from './words.js';

/** How a time reads in a memory that must stand on its own: the date the phrase named. */
export function dateWords(t: SaidTime): string {
  const season = ['winter', 'spring', 'summer', 'autumn'][Math.floor((Number(t.start.slice(5, 7)) % 12) / 3)];
  const span =
    t.unit === 'year'
      ? t.start.slice(0, 4)
      : t.unit === 'month'
        ? t.start.slice(0, 7)
        : t.unit === 'day'
          ? t.start
          : t.unit === 'season'
            ? `${season} ${t.start.slice(0, 4)}`
            : `the ${t.unit} of ${t.start}`;
  const said = t.phrase.toLowerCase();
  const own = ['starting', 'from', 'by', 'before', 'within', 'until', 'till', 'up to', 'as of', 'through'].find((r) =>
    said.startsWith(`${r} `),
  );
  const lead =
    own ?? (t.relation === 'since' ? 'since' : t.relation === 'until' ? 'until' : t.unit === 'day' ? 'on' : 'in');
  return `${lead} ${span}`;
}

/** Clause words before a subject that leave what follows a statement. */
const CONCEDING = new Set(['because', 'cause', 'although', 'though', 'whereas']);

/** Marks and fillers before the subject: they say nothing about who a clause is about. */
const beforeSubject = (w: string) =>
  w === ',' || w === '(' || w === ')' || w === '"' || w === 'please' || FILLERS.has(w) || ADVERBS.has(w);

/** Who a clause is about, from its first word: the speaker ("I", "we", a dropped "I"), their own ("my"), or else. */
type Subject = 'i' | 'we' | 'my' | 'other';

/** A lead-in before a clause ("Big news:", "In March,"): a few words with no subject of their own. */
const LEAD_MAX = 6;

/**
 * The clauses of a message, in order. A sentence ends at `.`, `!`, `?`, `;`; inside one, a clause ends before a new
 * subject ("and I…", ", my…"), a clause word ("but", "because"), a relative (", which…"), a question after a comma
 * (", whats a good gym", ", any tips"), a colon or a dash ("Big news: we moved…"), and before a life verb that goes on
 * with the same speaker ("I moved to Leeds and started at Acme"). A sentence that ends in `?` is a question and gives
 * nothing but the statement before its last comma ("I live in Austin, best bbq near me?"); a run of marks after a
 * statement ("…running now??", "?!") is emphasis, not a question. One pass over the words.
 */
export function clauses(all: Word[], text = ''): Clause[] {
  const out: Clause[] = [];
  let cur: Word[] = [];
  /** Who `cur` is about (from its first word that is no filler), and whether any subject word is in it. */
  let subject: Subject | undefined;
  let hasSubject = false;
  /** True once the sentence spoke of someone else ("she", "my sister"): the next may drop their name, not "I". */
  let aboutOther = false;
  /** True while `cur` opens a sentence (or follows a colon or a dash): a dropped "I" may be read there. */
  let opensSentence = true;
  /** The subject a clause that goes on after "and" / a comma takes from the one before. */
  let inherit: 'i' | 'we' | null = null;
  /** A lead-in before the next clause, and what it said ("remember:", "from now on -"). */
  let lead: Word[] | undefined;
  let carried = { explicit: false, fromNow: false };
  const reset = () => {
    cur = [];
    subject = undefined;
    hasSubject = false;
  };
  const push = (word: Word) => {
    cur.push(word);
    if (SUBJECTS.has(word.w)) hasSubject = true;
    if (THIRD_PARTY.has(word.w) || PERSONS.has(singular(word.w))) aboutOther = true;
    if (subject !== undefined || beforeSubject(word.w)) return;
    if (word.w === 'i' || word.w === 'we') subject = word.w;
    else if (word.w === 'my' || word.w === 'our') subject = 'my';
    else if (DROPPED_I_VERBS.has(word.w) && (opensSentence || inherit !== null)) subject = inherit ?? 'i';
    else subject = 'other';
  };
  /** Reads `ws` as a clause; a short one with no subject becomes the lead-in of the next when `leads`. */
  const emit = (ws: Word[], leads: boolean) => {
    const opened = open(ws, { opensSentence, inherit, ...carried, ...(lead ? { lead } : {}) });
    lead = undefined;
    carried = { explicit: false, fromNow: false };
    if (opened.clause) out.push(opened.clause);
    else if (opened.explicit || opened.fromNow) carried = { explicit: opened.explicit, fromNow: opened.fromNow };
    if (leads && !hasSubject && subject !== 'i' && ws.length <= LEAD_MAX) lead = ws;
  };
  /** Ends the clause in `cur`; the next one goes on with the speaker when `goesOn` and this one was about them. */
  const flush = (leads: boolean, goesOn = false) => {
    const speaker = subject === 'i' || subject === 'we' ? subject : null;
    if (cur.length > 0) emit(cur, leads);
    inherit = goesOn ? speaker : null;
    reset();
  };
  const endSentence = () => {
    lead = undefined;
    carried = { explicit: false, fromNow: false };
    opensSentence = !aboutOther;
    aboutOther = false;
    inherit = null;
  };
  for (let i = 0; i < all.length; i++) {
    const word = all[i]!;
    if (SENTENCE_END.has(word.w)) {
      const statementShaped = subject === 'i' || subject === 'we' || subject === 'my';
      const emphasis = word.w === '?' && (all[i + 1]?.w === '?' || all[i + 1]?.w === '!');
      if (word.w === '?' && !(emphasis && statementShaped)) {
        // A question is thrown away, but for a statement before it: "I prefer small libraries, how do I …?" and "I
        // live in Austin, best bbq near me?" keep what was said; nothing of "should I move to Rome?" is one.
        let cut = -1;
        let last = -1;
        for (let q = 1; q < cur.length - 1; q++) {
          if (cur[q]!.w !== ',') continue;
          if (cut < 0 && asksAt(cur, q + 1)) cut = q;
          last = q;
        }
        const keep = cut > 0 ? cut : last;
        if (keep > 0 && statementShaped) emit(cur.slice(0, keep), false);
        reset();
      } else flush(false);
      endSentence();
      continue;
    }
    const next = all[i + 1]?.w;
    if (word.w === ':' || word.w === '-') {
      // "Quick update - moved to leeds" drops the "I"; "Anna: moved to Rome" and "my sister - got a dog" do not.
      const named = namesSomeone(text, cur) || aboutOther;
      flush(true);
      opensSentence = !named;
      continue;
    }
    const newSubject = next !== undefined && SUBJECTS.has(next);
    const relative = word.w === ',' && (next === 'which' || next === 'who' || next === 'where' || next === 'whose');
    const asking = (word.w === ',' && asksAt(all, i + 1)) || invertedAt(all, i);
    const goesOn =
      (word.w === 'and' || word.w === ',' || word.w === 'but' || word.w === 'so') &&
      (subject === 'i' || subject === 'we') &&
      DROPPED_I_VERBS.has(verbAfter(all, i + 1));
    if (
      (CLAUSE_BREAK.has(word.w) ||
        relative ||
        asking ||
        goesOn ||
        (word.w === 'and' && newSubject) ||
        (word.w === ',' && newSubject)) &&
      cur.length > 0
    ) {
      flush(word.w === ',' && newSubject, goesOn);
      opensSentence = false;
      if (word.w !== ',') push(word);
      continue;
    }
    push(word);
  }
  flush(false);
  return out;
}

/**
 * True when a lead-in may name the one a clause after it is about: a person word, a possessive, or a capitalised word
 * that is not the first ("Anna:", "Ben and Mia -", "my sister:"), so a dropped subject is not read as "I".
 */
function namesSomeone(text: string, ws: readonly Word[]): boolean {
  const content = ws.filter((x) => /^\p{L}|^'/u.test(x.w));
  if (content.some((x) => PERSONS.has(singular(x.w)) || x.w === "'s" || SUBJECTS.has(x.w))) return true;
  const capital = (x: Word) => isName(text.slice(x.start, x.end)) && x.w !== 'i';
  if (content.length === 1) return capital(content[0]!) && !FILLERS.has(content[0]!.w);
  return content.some((x, k) => k > 0 && capital(x));
}

/** The word from `k` on past a few adverbs: the verb of "and then moved", "but just got". */
function verbAfter(ws: readonly Word[], k: number): string {
  let v = k;
  while (v < k + 3 && ADVERBS.has(ws[v]?.w ?? '') && ws[v]!.w !== 'do') v += 1;
  return ws[v]?.w ?? '';
}

/** How a clause is opened: where it stands in its sentence, the subject it goes on with, what came before it. */
interface Opening {
  opensSentence: boolean;
  inherit: 'i' | 'we' | null;
  explicit: boolean;
  fromNow: boolean;
  lead?: Word[];
}

/**
 * Drops fillers before the subject and after what the clause says ("btw", "lol", "I guess", "these days"), reads
 * "remember that", "from now on", and gives a clause that opens with a life verb its dropped subject ("moved to
 * leeds" → "I moved to leeds").
 */
export function open(
  ws: Word[],
  how: Opening = { opensSentence: true, inherit: null, explicit: false, fromNow: false },
): { clause: Clause | null; explicit: boolean; fromNow: boolean } {
  let i = 0;
  let explicit = how.explicit;
  let fromNow = how.fromNow;
  const at = (k: number) => ws[i + k]?.w;
  for (let guard = 0; guard < ws.length; guard++) {
    if (at(0) === ',' || at(0) === ':' || at(0) === '(' || at(0) === ')' || at(0) === '"' || at(0) === '-') i += 1;
    else if (at(0) === 'please') i += 1;
    // "because I live in Leeds", "although I switched…": a reason or a concession still says what it says.
    else if (CONCEDING.has(at(0) ?? '')) i += 1;
    else if (isLaugh(at(0) ?? '')) i += 1;
    else if (FILLERS.has(at(0) ?? '') && at(1) !== 'on' && !(at(0) === 'now' && at(1) === 'that')) i += 1;
    else if (at(0) === 'by' && at(1) === 'the' && at(2) === 'way') i += 3;
    else if ((at(0) === 'these' && at(1) === 'days') || (at(0) === 'right' && at(1) === 'now')) i += 2;
    else if (at(0) === 'at' && at(1) === 'the' && at(2) === 'moment') i += 3;
    else if (at(0) === 'just' && at(1) === 'so' && at(2) === 'you' && at(3) === 'know') i += 4;
    else if (at(0) === 'for' && at(1) === 'the' && at(2) === 'record') {
      explicit = true;
      i += 3;
    } else if ((at(0) === 'remember' || at(0) === 'note' || at(0) === 'memorize') && at(1) !== 'to') {
      explicit = true;
      i += at(1) === 'that' ? 2 : 1;
    } else if (at(0) === 'keep' && at(1) === 'in' && at(2) === 'mind') {
      explicit = true;
      i += at(3) === 'that' ? 4 : 3;
    } else if (at(0) === 'do' && at(1) === 'not' && at(2) === 'forget') {
      explicit = true;
      i += at(3) === 'that' ? 4 : 3;
    } else if (at(0) === 'from' && at(1) === 'now' && at(2) === 'on') {
      fromNow = true;
      explicit = true;
      i += 3;
    } else if (at(0) === 'going' && at(1) === 'forward') {
      fromNow = true;
      explicit = true;
      i += 2;
    } else break;
  }
  const last = withoutTail(ws, i);
  const rest = ws.slice(i, last);
  if (rest.length === 0) return { clause: null, explicit, fromNow };
  // "moved to leeds last month", "just got a puppy": chat drops the "I" before a life verb at the start of a sentence.
  let v = 0;
  while (v < rest.length && ADVERBS.has(rest[v]!.w) && rest[v]!.w !== 'do') v += 1;
  const verb = rest[v]?.w ?? '';
  const dropped = DROPPED_I_VERBS.has(verb) && (how.inherit !== null || how.opensSentence);
  const words = dropped ? [{ w: how.inherit ?? 'i', start: rest[0]!.start, end: rest[0]!.start }, ...rest] : rest;
  const clause: Clause = {
    words,
    explicit,
    fromNow,
    ...(dropped ? { dropped } : {}),
    ...(how.lead ? { lead: how.lead } : {}),
  };
  return { clause, explicit, fromNow };
}

/** Where a clause's words end once marks and fillers after what it says are dropped ("…peanuts btw lol"). */
function withoutTail(ws: readonly Word[], from: number): number {
  let last = ws.length;
  const w = (k: number) => ws[k]?.w ?? '';
  for (let guard = 0; guard < ws.length && last > from; guard++) {
    const end = w(last - 1);
    if ([',', ':', '(', ')', '"', '-'].includes(end) || isLaugh(end)) last -= 1;
    else if (last - from >= 3 && TAIL_TRIPLES.has(`${w(last - 3)} ${w(last - 2)} ${end}`)) last -= 3;
    else if (last - from >= 2 && TAIL_PAIRS.has(`${w(last - 2)} ${end}`)) last -= 2;
    else if (
      TAIL_FILLERS.has(end) &&
      !(end === 'now' && ['from', 'until', 'till', 'since', 'of', 'by', 'right'].includes(w(last - 2)))
    )
      last -= 1;
    else break;
  }
  return last;
}

/** The original text of words [from, to). */
export function textOf(text: string, ws: readonly Word[], from: number, to: number): string {
  if (to <= from) return '';
  return text.slice(ws[from]!.start, ws[to - 1]!.end);
}

/**
 * The object after a verb: words from `from` until one that ends it (or a time phrase), without trailing fillers and
 * leading determiners; null when it names nothing ("it", "that", "a lot").
 */
export function objectAt(
  ws: readonly Word[],
  from: number,
  stopAt: number,
  extraEnd?: ReadonlySet<string>,
): { from: number; to: number; head: string; words: string[] } | null {
  let to = from;
  for (;;) {
    while (
      to < stopAt &&
      !OBJECT_END.has(ws[to]!.w) &&
      !extraEnd?.has(ws[to]!.w) &&
      ws[to]!.w !== ',' &&
      ws[to]!.w !== ':'
    ) {
      if (to > from && ws[to]!.w === 'a' && ['lot', 'bit', 'little', 'ton'].includes(ws[to + 1]?.w ?? '')) break;
      to += 1;
    }
    // "simple, minimal dependencies": a comma after a lone first word (an adjective) goes on, unless a list is read.
    const afterComma = ws[to + 1]?.w;
    const lone = to - from === 1 || (to - from === 2 && DETERMINERS.has(ws[from]!.w));
    if (ws[to]?.w !== ',' || !lone || extraEnd?.has(',') || afterComma === undefined) break;
    if (SUBJECTS.has(afterComma) || QUESTION_WORDS.has(afterComma) || OBJECT_END.has(afterComma)) break;
    // "an architect, mostly small extensions": after a noun of its own, or before an adverb, a comma adds detail.
    const lone1 = singular(ws[to - 1]!.w);
    if (ADVERBS.has(afterComma) || OCCUPATIONS.has(lone1) || DIETS.has(lone1) || PETS.has(lone1) || PERSONS.has(lone1))
      break;
    to += 1;
  }
  // "a" ends an object only after its first word ("a lot", "a bit"): "I love a good book" keeps it.
  if (to === from && ws[from]?.w === 'a') {
    to = from + 1;
    while (to < stopAt && !OBJECT_END.has(ws[to]!.w) && !extraEnd?.has(ws[to]!.w) && ws[to]!.w !== ',') to += 1;
  }
  let start = from;
  while (start < to && (DETERMINERS.has(ws[start]!.w) || (ADVERBS.has(ws[start]!.w) && ws[start]!.w !== 'do')))
    start += 1;
  while (to > start && (TRAILING.has(ws[to - 1]!.w) || ws[to - 1]!.w === ',')) to -= 1;
  if (to <= start) return null;
  // "your recipe", "his idea": what belongs to someone else is not a fact about the speaker.
  if (['your', 'his', 'her', 'their', 'its'].includes(ws[start]!.w)) return null;
  const inner = ws.slice(start, to).map((x) => x.w);
  if (inner.length > 8) return null;
  const head = singular(inner[inner.length - 1]!);
  if (EMPTY_OBJECT.has(head) || EMPTY_OBJECT.has(inner[0]!) || /^\d+$/.test(head) || head === "'s") return null;
  return { from: start, to, head, words: inner };
}

/** Turns a clause into the third person: "I really love my dog" → "User really loves their dog". */
export function thirdPersonText(text: string, ws: readonly Word[], from: number, to: number): string {
  const out: string[] = [];
  let verbPending = false;
  /** After a "they" that was "I": "I was" → "they were". */
  let plural = false;
  for (let k = from; k < to; k++) {
    const word = ws[k]!;
    const lower = word.w;
    // Halves of an opened contraction ("don't" → "do", "not") share their source: spell them out.
    const opened = ws[k - 1]?.start === word.start || (ws[k + 1]?.start === word.start && ws[k + 1]!.w !== "'s");
    const raw = opened ? lower : text.slice(word.start, word.end);
    if (lower === "'s" && out.length > 0) {
      out[out.length - 1] += "'s";
      continue;
    }
    let piece: string;
    if (lower === 'i') {
      piece = out.length === 0 ? 'User' : 'they';
      verbPending = out.length === 0;
      plural = out.length > 0;
    } else if (plural && (lower === 'am' || lower === 'was')) {
      piece = lower === 'am' ? 'are' : 'were';
      plural = false;
    } else if (lower === 'we') piece = out.length === 0 ? 'User and their family' : 'they';
    else if (lower === 'my' || lower === 'our') piece = out.length === 0 ? "User's" : 'their';
    else if (lower === 'me' || lower === 'us') piece = 'them';
    else if (lower === 'mine') piece = 'theirs';
    else if (lower === 'myself') piece = 'themselves';
    else if (verbPending && ((ADVERBS.has(lower) && lower !== 'do') || lower === 'never' || lower === 'longer'))
      piece = raw;
    else if (verbPending && lower === 'no' && ws[k + 1]?.w === 'longer') piece = raw;
    else if (verbPending) {
      piece = thirdPerson(lower);
      verbPending = false;
    } else piece = raw;
    out.push(piece);
  }
  return out.join(' ').replace(/\s+([,;:])/g, '$1');
}

/** The memory text of a clause: third person, its time phrase replaced by the date it named. */
export function statementText(text: string, c: Clause, from: number, to: number, time: SaidTime | undefined): string {
  const ws = c.words;
  if (!time) return `${capital(thirdPersonText(text, ws, from, to))}.`;
  // A time of the lead-in before the clause ("In March, we moved to Leeds") goes after what it says.
  if (from < to && time.index < ws[from]!.start)
    return `${capital(thirdPersonText(text, ws, from, to))} ${dateWords(time)}.`;
  // Words of the time phrase are replaced by its date.
  const inTime = (k: number) => ws[k]!.start >= time.index && ws[k]!.end <= time.index + time.phrase.length;
  const before: number[] = [];
  const after: number[] = [];
  let seen = false;
  for (let k = from; k < to; k++) {
    if (inTime(k)) seen = true;
    else (seen ? after : before).push(k);
  }
  const part = (ks: number[]) => (ks.length === 0 ? '' : thirdPersonText(text, ws, ks[0]!, ks[ks.length - 1]! + 1));
  const head = part(before);
  const tail = part(after);
  const date = dateWords(time);
  return `${capital([head, date, tail].filter((s) => s.length > 0).join(' ')).replace(/\s+([,;:])/g, '$1')}.`;
}

export const capital = (s: string) => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1));

/** Where the subject "I" / "we" / "my" stands: the first word of the clause, or after "you know," / "I think". */
export function subjectAt(ws: readonly Word[]): number {
  if (ws[0]?.w === 'i' && (ws[1]?.w === 'think' || ws[1]?.w === 'guess' || ws[1]?.w === 'suppose') && ws[2]?.w === 'i')
    return 2;
  return 0;
}
