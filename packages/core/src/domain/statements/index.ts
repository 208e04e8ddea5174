/**
 * The offline extractor's reading of a message (issue 33): what a person says about themselves in the first person —
 * preferences and dislikes, name, age, occupation and employer, where they live or moved, where they are from, people
 * and pets with their names, diets and constraints ("allergic to", "can't eat"), plans with dates, explicit
 * "remember that…" / "from now on…" — each with a subject and an attribute, so that a later statement about the same
 * attribute supersedes it and a retraction ("I no longer…", "…not anymore", "I stopped…") closes it.
 *
 * What it cannot do, by design (a model extractor does these): read third-person facts about others ("Anna moved to
 * Rome"), questions, hypotheticals and wishes ("if I lived…", "I'd love to…"), sarcasm, facts spread over several
 * messages, pronouns pointing back ("I love it"), and languages other than English. It prefers to miss a fact over
 * inventing one: small talk ("I'm tired", "I had pizza") gives nothing.
 *
 * Pure and deterministic; one pass over the words of each clause for each reading, so linear in the text.
 */

import { saidTimes } from '../said-time.js';
import { clauses, dateWords, objectAt, statementText, subjectAt, textOf } from './clauses.js';
import {
  likeStatement,
  nameStatement,
  negatedPolarity,
  noteStatement,
  occupationStatement,
  placeStatement,
  planStatement,
  preferenceStatement,
  readBeing,
  readHaving,
  readPossessive,
  verbStatement,
} from './readers.js';
import type { Clause, Found, Maker, Statement, StatementKind, Word } from './types.js';
import {
  ADVERBS,
  DISLIKE_VERBS,
  EAT_VERBS,
  FIRM_PLAN,
  isName,
  keyOf,
  LIKE_VERBS,
  MOVE_VERBS,
  PLAN_VERBS,
  PREFERENCE_VERBS,
  RATHER_VERBS,
  singular,
  TRAVEL_VERBS,
  words,
} from './words.js';

/**
 * Every statement about the speaker in `text`, in order, its times resolved against `at` (when the text was said).
 * Questions, wishes and hypotheticals give none.
 */
export function firstPersonStatements(text: string, at: Date | string): Statement[] {
  const out: Statement[] = [];
  for (const c of clauses(words(text))) {
    const found = readClause(text, c, at);
    if (Array.isArray(found)) out.push(...found);
    else if (found) out.push(found);
  }
  return out;
}

export function readClause(text: string, c: Clause, at: Date | string): Found {
  const ws = c.words;
  const first = subjectAt(ws);
  const end = ws.length;
  const w = (k: number) => ws[k]?.w;
  if (w(first) === 'if' || w(first) === 'when' || w(first) === 'whether') return null;
  const clauseText = textOf(text, ws, 0, end);
  // A sentence about what lies ahead places a month without a year in the future ("I'm going to Japan in April").
  const ahead = ws.some(
    (x, k) =>
      x.w === 'will' ||
      x.w === 'gonna' ||
      FIRM_PLAN.has(x.w) ||
      (x.w === 'going' && ws[k + 1]?.w === 'to') ||
      ((x.w === 'am' || x.w === 'are') && (TRAVEL_VERBS.has(ws[k + 1]?.w ?? '') || MOVE_VERBS.has(ws[k + 1]?.w ?? ''))),
  );
  const times = saidTimes(clauseText, at, { ahead }).map((t) => ({ ...t, index: t.index + ws[0]!.start }));
  const time = times[0];
  /** Words before the time phrase: where an object must end. */
  const stop = time ? ws.findIndex((x) => x.start >= time.index) : -1;
  const objectStop = stop < 0 ? end : stop;
  const world = (): Pick<Statement, 'validFrom' | 'validTo'> => {
    if (!time) return { validFrom: lastedSince(ws, first, at), validTo: null };
    if (time.relation === 'until') return { validFrom: null, validTo: time.end };
    return { validFrom: time.start, validTo: null };
  };
  const retracting = ws.some(
    (x, k) => (x.w === 'longer' && w(k - 1) === 'no') || x.w === 'anymore' || (x.w === 'more' && w(k - 1) === 'any'),
  );
  const made = (
    kind: StatementKind,
    attribute: string[],
    single: boolean,
    value: string,
    opts: { polarity?: Statement['polarity']; statement?: string; stance?: Statement['stance'] } = {},
  ): Statement => ({
    kind,
    subject: 'user',
    attribute: attribute.map((a) => a).join('.'),
    single,
    polarity: opts.polarity ?? (retracting ? 'retracted' : 'holds'),
    stance: opts.stance ?? 'for',
    value,
    statement: opts.statement ?? statementText(text, c, first, end, time),
    // A birthday or a birth year is a fact about a date, not a time the fact starts to hold.
    ...(attribute[0] === 'birthday' || attribute[0] === 'birth-year' ? { validFrom: null, validTo: null } : world()),
    ...(c.fromNow && !time
      ? { validFrom: new Date(typeof at === 'string' ? Date.parse(at) : at.getTime()).toISOString().slice(0, 10) }
      : {}),
    index: ws[0]!.start,
    source: clauseText,
  });
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  const make: Maker = Object.assign(made, { saidDay: Math.floor(ms / 86_400_000) * 86_400_000 });

  // "afternoon flights suit me better", "mornings work better for me".
  for (let k = 1; k < Math.min(end, 10); k++) {
    const v = w(k);
    const suits = (v === 'suit' || v === 'suits') && w(k + 1) === 'me';
    const works =
      (v === 'work' || v === 'works' || v === 'are' || v === 'is') &&
      (w(k + 1) === 'better' || w(k + 2) === 'better') &&
      ws.slice(k, k + 5).some((x) => x.w === 'me');
    if ((suits || works) && w(first) !== 'i' && w(first) !== 'it' && w(first) !== 'that' && w(first) !== 'this') {
      const obj = objectAt(ws, first, k);
      if (!obj) return null;
      const value = textOf(text, ws, obj.from, obj.to);
      return make('preference', ['preference', keyOf([obj.head])], true, value, {
        polarity: 'holds',
        statement: `User prefers ${value.toLowerCase()}${time ? ` ${dateWords(time)}` : ''}.`,
      });
    }
  }

  if (w(first) === 'my' || w(first) === 'our') {
    return readPossessive(text, c, first, make) ?? (c.explicit ? noteStatement(text, c, make) : null);
  }
  if (w(first) === 'call' && w(first + 1) === 'me' && ws[first + 2]) return nameStatement(text, ws, first + 2, make);
  if (w(first) === 'you' && w(first + 1) === 'can' && w(first + 2) === 'call' && w(first + 3) === 'me')
    return nameStatement(text, ws, first + 4, make);
  if (w(first) !== 'i' && w(first) !== 'we') return c.explicit ? noteStatement(text, c, make) : null;
  const we = w(first) === 'we';

  // After the subject: adverbs, then negation and the verb.
  let k = first + 1;
  while (k < end && ADVERBS.has(w(k)!) && !(w(k) === 'do' && w(k + 1) === 'not')) k += 1;
  let negated = false;
  if (
    (w(k) === 'do' || w(k) === 'did' || w(k) === 'will' || w(k) === 'can' || w(k) === 'am' || w(k) === 'could') &&
    w(k + 1) === 'not'
  ) {
    negated = true;
    if (w(k) === 'am') return readBeing(text, c, k + 2, objectStop, make, true, we, time);
    {
      const modal = w(k);
      k += 2;
      if (modal === 'can' || modal === 'could') {
        // "I can't eat gluten", "I can't stand jazz".
        if (w(k) === 'stand') return likeStatement(text, ws, k + 1, objectStop, 'dislike', make);
        if (EAT_VERBS.has(w(k)!)) return verbStatement(text, ws, k, objectStop, make, 'constraint');
        return null;
      }
    }
  } else if (w(k) === 'am' && w(k + 1) === 'no' && w(k + 2) === 'longer') {
    return readBeing(text, c, k + 3, objectStop, make, true, we, time);
  } else if (w(k) === 'no' && w(k + 1) === 'longer') {
    // "I no longer eat meat": a habit that stopped (likes and places are read below with their own verbs).
    k += 2;
    const verb = w(k);
    if (verb !== undefined && !LIKE_VERBS.has(verb) && verb !== 'live' && verb !== 'work' && verb !== 'have') {
      const habit = verbStatement(text, ws, k, objectStop, make, 'habit');
      if (habit) return habit;
    }
  } else if (w(k) === 'never') {
    negated = true;
    k += 1;
  }
  while (k < end && ADVERBS.has(w(k)!)) k += 1;
  const verb = w(k);
  if (verb === undefined) return null;
  if (
    verb === 'would' ||
    verb === 'should' ||
    verb === 'might' ||
    verb === 'could' ||
    verb === 'wish' ||
    verb === 'wonder'
  ) {
    // "I'd rather take afternoon flights": a preference when a plain choice verb follows.
    if (verb === 'would' && w(k + 1) === 'rather' && RATHER_VERBS.has(w(k + 2) ?? ''))
      return preferenceStatement(text, ws, k + 3, objectStop, make);
    return null;
  }
  if (!negated && PREFERENCE_VERBS.has(verb)) return preferenceStatement(text, ws, k + 1, objectStop, make);
  if (LIKE_VERBS.has(verb)) {
    if (w(k + 1) === 'to' && !negated && !retracting) return null; // "I'd love to", "I like to think": a wish or a habit.
    return likeStatement(text, ws, k + 1, objectStop, negated ? 'dislike' : 'like', make);
  }
  if (DISLIKE_VERBS.has(verb)) return likeStatement(text, ws, k + 1, objectStop, 'dislike', make);
  // "I quit my job", "I left my job at Acme": the employer no longer holds.
  if (
    (verb === 'quit' || verb === 'left' || verb === 'lost') &&
    w(k + 1) === 'my' &&
    (w(k + 2) === 'job' || w(k + 2) === 'position')
  ) {
    return make('employer', ['employer'], true, textOf(text, ws, k + 1, k + 3), { polarity: 'retracted' });
  }
  if (!negated && (verb === 'stopped' || verb === 'quit' || (verb === 'gave' && w(k + 1) === 'up'))) {
    const obj = objectAt(ws, verb === 'gave' ? k + 2 : k + 1, objectStop);
    if (!obj) return null;
    return make('constraint', ['habit', keyOf(obj.words.map(singular))], false, textOf(text, ws, obj.from, obj.to), {
      polarity: 'retracted',
    });
  }
  if (
    verb === 'live' ||
    verb === 'lives' ||
    verb === 'reside' ||
    ((verb === 'am' || verb === 'are') && (w(k + 1) === 'living' || w(k + 1) === 'based'))
  ) {
    const at2 = verb === 'am' || verb === 'are' ? k + 2 : k + 1;
    if (w(at2) !== 'in' && w(at2) !== 'at' && w(at2) !== 'near' && w(at2) !== 'outside') return null;
    return placeStatement(text, ws, at2 + 1, objectStop, 'residence', make, negated);
  }
  if (
    MOVE_VERBS.has(verb) ||
    ((verb === 'am' || verb === 'are' || verb === 'have' || verb === 'will') && MOVE_VERBS.has(w(k + 1) ?? '')) ||
    ((verb === 'just' || verb === 'recently') && MOVE_VERBS.has(w(k + 1) ?? ''))
  ) {
    const v = MOVE_VERBS.has(verb) ? k : k + 1;
    const to = w(v + 1) === 'back' ? v + 2 : v + 1;
    if (w(to) !== 'to' && w(to) !== 'into' && w(to) !== 'in') return null;
    return placeStatement(text, ws, to + 1, objectStop, 'residence', make, negated);
  }
  if ((verb === 'am' && w(k + 1) === 'from') || (verb === 'come' && w(k + 1) === 'from')) {
    return placeStatement(text, ws, k + 2, objectStop, 'origin', make, negated);
  }
  if (
    (verb === 'grew' && w(k + 1) === 'up' && w(k + 2) === 'in') ||
    (verb === 'was' && w(k + 1) === 'born' && w(k + 2) === 'in')
  ) {
    if (verb === 'was' && time?.unit === 'year' && ws[k + 2]!.start === time.index) {
      return make('identity', ['birth-year'], true, time.start.slice(0, 4));
    }
    return placeStatement(text, ws, k + 3, objectStop, 'origin', make, negated);
  }
  if (verb === 'work' || verb === 'works' || (verb === 'am' && w(k + 1) === 'working')) {
    const p = verb === 'am' ? k + 2 : k + 1;
    if (w(p) === 'as') return occupationStatement(text, ws, p + 1, objectStop, make, negated);
    if (w(p) === 'at' || w(p) === 'for') {
      const obj = objectAt(ws, p + 1, objectStop);
      if (!obj) return null;
      return make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to), negatedPolarity(negated));
    }
    return null;
  }
  if (verb === 'am' || verb === 'are') return readBeing(text, c, k + 1, objectStop, make, negated, we, time);
  // "I've been living in Toronto", "I have lived here since 2019", "I've moved to Oslo", "I've worked at Acme".
  if ((verb === 'have' || verb === 'had') && !negated) {
    const next = w(k + 1);
    if (next === 'been') return readBeing(text, c, k + 2, objectStop, make, false, we, time);
    if (next === 'lived' && (w(k + 2) === 'in' || w(k + 2) === 'at'))
      return placeStatement(text, ws, k + 3, objectStop, 'residence', make, false);
    if (next === 'moved' && w(k + 2) === 'to')
      return placeStatement(text, ws, k + 3, objectStop, 'residence', make, false);
    if (next === 'worked' && (w(k + 2) === 'at' || w(k + 2) === 'for')) {
      const obj = objectAt(ws, k + 3, objectStop);
      return obj ? make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to)) : null;
    }
  }
  if (verb === 'was' && w(k + 1) === 'born' && time?.unit === 'year') {
    return make('identity', ['birth-year'], true, time.start.slice(0, 4));
  }
  if (verb === 'turned' && /^\d{1,3}$/.test(w(k + 1) ?? '')) return make('age', ['age'], true, w(k + 1)!);
  // "I joined Meta last month", "I started at Acme in May": a new employer.
  if ((verb === 'joined' || (verb === 'started' && w(k + 1) === 'at')) && !negated) {
    const at2 = verb === 'joined' ? k + 1 : k + 2;
    const org = ws[at2];
    if (org && isName(text.slice(org.start, org.end))) {
      const obj = objectAt(ws, at2, objectStop);
      if (obj) return make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to));
    }
  }
  // "I've switched to decaf", "I'm switching to Linux": a preference that replaces the one before.
  if ((verb === 'switched' || verb === 'switching' || verb === 'switch') && w(k + 1) === 'to') {
    return preferenceStatement(text, ws, k + 2, objectStop, make);
  }
  if (
    (verb === 'have' || verb === 'am') &&
    (w(k + 1) === 'switched' || w(k + 1) === 'switching') &&
    w(k + 2) === 'to'
  ) {
    return preferenceStatement(text, ws, k + 3, objectStop, make);
  }
  if (verb === 'got' && w(k + 1) === 'married') return make('relationship', ['relationship'], true, 'married');
  if (verb === 'have' || verb === 'got' || verb === 'adopted' || verb === 'has') {
    if (negated) return null;
    return readHaving(text, ws, k + 1, objectStop, make);
  }
  if (negated && (verb === 'eat' || verb === 'drink' || verb === 'smoke' || verb === 'use' || verb === 'take')) {
    return verbStatement(text, ws, k, objectStop, make, 'constraint');
  }
  if (!negated && (PLAN_VERBS.has(verb) || (verb === 'am' && PLAN_VERBS.has(w(k + 1) ?? '')))) {
    if (w(k + 1) !== 'to' && w(k + 2) !== 'to') return null;
    if (!FIRM_PLAN.has(verb) && !time) return null;
    return planStatement(text, ws, k, end, make, time);
  }
  if (!negated && verb === 'will' && time) return planStatement(text, ws, k, end, make, time);
  return c.explicit ? noteStatement(text, c, make) : null;
}

/**
 * "I have lived here for three years", "I've been vegan for a decade": the start a present perfect with "for" gives
 * (the count back from when it was said), or null.
 */
export function lastedSince(ws: readonly Word[], first: number, at: Date | string): string | null {
  let k = first + 1;
  while (k < ws.length && ADVERBS.has(ws[k]!.w) && ws[k]!.w !== 'do') k += 1;
  if (ws[k]?.w !== 'have' && ws[k]?.w !== 'has') return null;
  for (let f = k + 1; f < ws.length; f++) {
    if (ws[f]!.w !== 'for') continue;
    if (ws[f + 1]?.w === 'a' && ws[f + 2]?.w === 'decade') return saidTimes('10 years ago', at)[0]?.start ?? null;
    for (const n of [2, 3, 4]) {
      const phrase = `${ws
        .slice(f + 1, f + 1 + n)
        .map((x) => x.w)
        .join(' ')} ago`;
      const back = saidTimes(phrase, at);
      if (back.length === 1 && back[0]!.phrase === phrase) return back[0]!.start;
    }
  }
  return null;
}

export type { Statement, StatementKind } from './types.js';
