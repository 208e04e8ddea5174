/**
 * Clauses of a message and the pieces of one: where it starts, its object, its third-person text and the dates in
 * it.
 */
import type { SaidTime } from '../said-time.js';
import type { Clause, Word } from './types.js';
import {
  ADVERBS,
  CLAUSE_BREAK,
  DETERMINERS,
  EMPTY_OBJECT,
  FILLERS,
  OBJECT_END,
  QUESTION_WORDS,
  SENTENCE_END,
  SUBJECTS,
  singular,
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

export function clauses(all: Word[]): Clause[] {
  const out: Clause[] = [];
  let cur: Word[] = [];
  let question = false;
  const flush = () => {
    if (cur.length > 0 && !question) out.push(...open(cur));
    cur = [];
  };
  for (let i = 0; i < all.length; i++) {
    const word = all[i]!;
    if (SENTENCE_END.has(word.w)) {
      question = word.w === '?';
      // A question is thrown away, but for a statement before it: "I prefer small libraries, how do I …?" keeps the
      // preference; nothing of "should I move to Rome?" is one.
      if (question) {
        let cut = -1;
        for (let q = cur.length - 2; q >= 0; q--) {
          if (cur[q]!.w === ',' && QUESTION_WORDS.has(cur[q + 1]!.w)) cut = q;
        }
        if (cut > 0) {
          cur = cur.slice(0, cut);
          question = false;
        }
      }
      flush();
      question = false;
      continue;
    }
    const next = all[i + 1]?.w;
    const newSubject = next !== undefined && SUBJECTS.has(next);
    const relative = word.w === ',' && (next === 'which' || next === 'who' || next === 'where');
    if (
      (CLAUSE_BREAK.has(word.w) || relative || (word.w === 'and' && newSubject) || (word.w === ',' && newSubject)) &&
      cur.length > 0
    ) {
      flush();
      if (word.w !== ',') cur.push(word);
      continue;
    }
    cur.push(word);
  }
  flush();
  return out;
}

/** Drops fillers before the subject and reads "remember that", "from now on". */
export function open(ws: Word[]): Clause[] {
  let i = 0;
  let explicit = false;
  let fromNow = false;
  const at = (k: number) => ws[i + k]?.w;
  for (let guard = 0; guard < ws.length; guard++) {
    if (at(0) === ',' || at(0) === ':' || at(0) === '(' || at(0) === ')' || at(0) === '"') i += 1;
    else if (at(0) === 'please') i += 1;
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
  let last = ws.length;
  while (last > i && [',', ':', '(', ')', '"'].includes(ws[last - 1]!.w)) last -= 1;
  const rest = ws.slice(i, last);
  return rest.length === 0 ? [] : [{ words: rest, explicit, fromNow }];
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
