/**
 * The offline extractor's reading of a message (issue 33): what a person says about themselves in the first person —
 * preferences and dislikes, name, age, occupation and employer, where they live or moved, where they are from, people
 * and pets with their names, diets and constraints ("allergic to", "can't eat"), plans with dates, explicit
 * "remember that…" / "from now on…" — each with a subject and an attribute, so that a later statement about the same
 * attribute supersedes it and a retraction ("I no longer…", "…not anymore", "I stopped…") closes it.
 *
 * It reads chat as typed: contractions without their apostrophe or with a curly one ("im", "dont", "I’m"; "id" and
 * "ill" only where they can be nothing else), a lower-case "i", names and words in any script ("Tomás", "Inês"), a
 * lead-in before the subject ("Big news: we moved…", "Quick update - …", "So yeah, …", "In March, we…"), fillers
 * before and after what is said ("btw", "lol", "tbh", "I guess", "these days" are never a value), emphasis that is no
 * question ("…now??", "?!"), a statement before a question in the same sentence ("I live in Austin, best bbq near
 * me?", "…, whats a good gym": the question is dropped and never part of the memory), and the "I" chat drops before a
 * few life verbs at the start of a sentence or going on from one ("moved to leeds last month", "just got a puppy
 * named Bo", "I moved to Leeds and started at Acme": moved, relocated, started, joined, quit, got, adopted, live,
 * work — giving only where one lives, works and what as, pets, diet and relationship). Changes of job and diet are
 * read with their common verbs ("got hired as", "was promoted to", "was made", "started at", "got laid off", "I'm on
 * a keto diet", "doing keto", "went vegan", "not doing keto anymore"). A time says when a fact starts only inside the
 * fact's own clause (or its lead-in) and with a verb of change or of what lies ahead, or as a start or end ("since",
 * "from", "until"): "I hate driving in winter" and "my husband Tom turns 40 in August" give no start.
 *
 * What it cannot do, by design (a model extractor does these): read third-person facts about others ("Anna moved to
 * Rome"), questions, hypotheticals and wishes ("if I lived…", "I'd love to…"), sarcasm, facts spread over several
 * messages, pronouns pointing back ("I love it"), a dropped "I" before any other verb ("allergic to nuts", "went
 * vegan") or after a sentence about someone else ("My sister is great. Moved to Rome…" gives nothing), possessions
 * other than pets ("I sold my car"), and languages other than English. It prefers to miss a fact over inventing one:
 * small talk ("I'm tired", "I had pizza", "went to the shops", "got home late") gives nothing.
 *
 * Pure and deterministic; one pass over the words of each clause for each reading, so linear in the text.
 */

import type { SaidTime } from '../said-time.js';
import { saidTimes } from '../said-time.js';
import { careerChange, dietAfterBe, dietVerb } from './changes.js';
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
  CHANGE_VERBS,
  DETERMINERS,
  DISLIKE_VERBS,
  EAT_VERBS,
  FILLERS,
  FIRM_PLAN,
  HEARSAY,
  isName,
  keyOf,
  LIKE_VERBS,
  MOVE_VERBS,
  PLAN_VERBS,
  PREFERENCE_VERBS,
  RATHER_VERBS,
  STATUS,
  singular,
  TRAVEL_VERBS,
  words,
} from './words.js';

/** Words before a count that leave it as said: "for about six years". */
const ROUGHLY = new Set(['about', 'around', 'almost', 'nearly', 'over', 'roughly', 'like']);

/** What one lives in that is no place: "live in the moment", "live in fear". */
const LIVE_IDIOMS = new Set(['fear', 'hope', 'peace', 'denial', 'harmony', 'sin', 'luxury', 'poverty']);

/** "Last month I moved to Leeds", "In March we…": the subject right after a time phrase that opens the clause. */
function subjectAfterTime(ws: readonly Word[], time: SaidTime | undefined): number | undefined {
  if (!time || time.index !== ws[0]!.start) return undefined;
  const after = ws.findIndex((x) => x.start >= time.index + time.phrase.length);
  const w = ws[after]?.w;
  return w === 'i' || w === 'we' || w === 'my' || w === 'our' ? after : undefined;
}

/**
 * The time of a lead-in before the clause ("In March, we moved…", "Last week: got a puppy"), when the lead-in opens
 * with it; its index points into the lead-in, before the clause.
 */
function leadTime(text: string, c: Clause, at: Date | string, ahead: boolean): SaidTime | undefined {
  const lead = c.lead;
  if (!lead || lead.length === 0) return undefined;
  let k = 0;
  while (k < lead.length && (FILLERS.has(lead[k]!.w) || lead[k]!.w === ',')) k += 1;
  if (k >= lead.length) return undefined;
  const said = saidTimes(textOf(text, lead, k, lead.length), at, { ahead })[0];
  return said && said.index === 0 ? { ...said, index: said.index + lead[k]!.start } : undefined;
}

/**
 * Every statement about the speaker in `text`, in order, its times resolved against `at` (when the text was said).
 * Questions, wishes and hypotheticals give none.
 */
export function firstPersonStatements(text: string, at: Date | string): Statement[] {
  const out: Statement[] = [];
  for (const c of clauses(words(text), text)) {
    const found = readClause(text, c, at);
    const all = Array.isArray(found) ? found : found ? [found] : [];
    // A clause whose "I" chat dropped ("moved to leeds", "got a puppy") says only a life fact, never a habit or a like.
    if (!c.dropped) out.push(...all);
    else if (!c.words.some((x) => HEARSAY.has(x.w)))
      out.push(...all.filter((s) => DROPPED_KINDS.has(s.kind) || s.attribute.startsWith('family.')));
  }
  return out;
}

/** What a clause with a dropped "I" may say. */
const DROPPED_KINDS: ReadonlySet<StatementKind> = new Set([
  'residence',
  'employer',
  'occupation',
  'pet',
  'relationship',
  'diet',
]);

/**
 * The main verb after the subject at `first`, past adverbs, negation and auxiliaries: "I've just moved" → moved, "I
 * was promoted" → promoted, "I'm moving" → moving.
 */
function mainVerb(ws: readonly Word[], first: number): string | undefined {
  let k = first + 1;
  while (k < ws.length && (ADVERBS.has(ws[k]!.w) || AUXILIARIES.has(ws[k]!.w))) k += 1;
  return ws[k]?.w;
}

const AUXILIARIES = new Set([
  'am',
  'is',
  'are',
  'was',
  'were',
  'have',
  'has',
  'had',
  'did',
  'will',
  'would',
  'been',
  'be',
  'not',
  'no',
  'longer',
  'never',
  'gonna',
]);

export function readClause(text: string, c: Clause, at: Date | string): Found {
  const ws = c.words;
  const end = ws.length;
  const w = (k: number) => ws[k]?.w;
  if (w(0) === 'if' || w(0) === 'when' || w(0) === 'whether') return null;
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
  const said = times[0] ?? leadTime(text, c, at, ahead);
  const first = subjectAfterTime(ws, said) ?? subjectAt(ws);
  /** Words before the time phrase: where an object must end (a time before the subject ends none). */
  const stop = said && said.index > ws[first]!.start ? ws.findIndex((x) => x.start >= said.index) : -1;
  const objectStop = stop < 0 ? end : stop;
  // A time is when the fact starts only with a verb of change or of what lies ahead ("in March we moved", "next week
  // I'm flying"), or said as a start or an end ("since May", "until June"); "I hate driving in winter" and "my
  // husband Tom turns 40 in August" say no start of what they tell.
  const main = mainVerb(ws, first);
  const eventful =
    ahead || (main !== undefined && (CHANGE_VERBS.has(main) || PLAN_VERBS.has(main) || TRAVEL_VERBS.has(main)));
  const time = said && (said.relation !== 'at' || eventful) ? said : undefined;
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
  /** "I am …" from `at`: a diet said with "on", "doing", "off", else the readings of `readBeing`. */
  const being = (at2: number, negated2: boolean): Found => {
    let b = at2;
    while (b < objectStop && ADVERBS.has(w(b)!) && w(b) !== 'do') b += 1;
    return dietAfterBe(ws, b, make, negated2, we) ?? readBeing(text, c, at2, objectStop, make, negated2, we, time);
  };

  // After the subject: adverbs, then negation and the verb.
  let k = first + 1;
  while (k < end && ADVERBS.has(w(k)!) && !(w(k) === 'do' && w(k + 1) === 'not')) k += 1;
  let negated = false;
  if (
    (w(k) === 'do' || w(k) === 'did' || w(k) === 'will' || w(k) === 'can' || w(k) === 'am' || w(k) === 'could') &&
    w(k + 1) === 'not'
  ) {
    negated = true;
    if (w(k) === 'am') return being(k + 2, true);
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
    return being(k + 3, true);
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
  const career = careerChange(text, ws, k, objectStop, make, negated, we);
  if (career !== undefined) return career;
  const diet = dietVerb(ws, k, make, negated, we);
  if (diet !== undefined) return diet;
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
    // "live in the moment", "live in fear": with no "I" said, only a place named right after the preposition.
    if (c.dropped && (DETERMINERS.has(w(at2 + 1) ?? '') || LIVE_IDIOMS.has(w(at2 + 1) ?? ''))) return null;
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
      // "work at the office today": with no "I" said, only an employer named right after the preposition.
      if (c.dropped && DETERMINERS.has(w(p + 1) ?? '')) return null;
      const obj = objectAt(ws, p + 1, objectStop);
      if (!obj) return null;
      return make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to), negatedPolarity(negated));
    }
    return null;
  }
  if (verb === 'am' || verb === 'are') return being(k + 1, negated);
  // "I've been living in Toronto", "I have lived here since 2019", "I've moved to Oslo", "I've worked at Acme".
  if ((verb === 'have' || verb === 'had') && !negated) {
    const next = w(k + 1);
    if (next === 'been') return being(k + 2, false);
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
  // "I joined Meta last month": a new employer ("started at" is read with the other changes of job).
  if (verb === 'joined' && !negated) {
    const at2 = k + 1;
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
  if (verb === 'got' && STATUS.has(w(k + 1) ?? '')) return make('relationship', ['relationship'], true, w(k + 1)!);
  if (verb === 'have' || verb === 'got' || verb === 'adopted' || verb === 'has') {
    // "I don't have a dog anymore": a pet retracted; "I don't have a car" is none.
    if (negated && !(retracting && verb === 'have')) return null;
    const had = readHaving(text, ws, k + 1, objectStop, make);
    return had && retracting && had.kind !== 'pet' ? null : had;
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
    // "for about six years", "for nearly a decade": the count as said.
    const g = ROUGHLY.has(ws[f + 1]?.w ?? '') ? f + 1 : f;
    if (ws[g + 1]?.w === 'a' && ws[g + 2]?.w === 'decade') return saidTimes('10 years ago', at)[0]?.start ?? null;
    for (const n of [2, 3, 4]) {
      const phrase = `${ws
        .slice(g + 1, g + 1 + n)
        .map((x) => x.w)
        .join(' ')} ago`;
      const back = saidTimes(phrase, at);
      if (back.length === 1 && back[0]!.phrase === phrase) return back[0]!.start;
    }
  }
  return null;
}

export type { Statement, StatementKind } from './types.js';
