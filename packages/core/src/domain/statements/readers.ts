/** The readings of one kind of statement each: likes, preferences, places, occupations, people, pets, plans… */
import type { SaidTime } from '../said-time.js';
import { capital, objectAt, textOf, thirdPersonText } from './clauses.js';
import type { Clause, Found, Maker, Statement, StatementKind, Word } from './types.js';
import {
  ADVERBS,
  CONNECT_NAME,
  DETERMINERS,
  DIETS,
  EMPTY_OBJECT,
  INSIDE_STOP,
  isName,
  keyOf,
  LIST_END,
  LIST_STOP,
  MOVE_VERBS,
  NOT_OCCUPATIONS,
  OBJECT_END,
  OCCUPATIONS,
  ONE_OF,
  PERSONS,
  PETS,
  PLAN_VERBS,
  PREPOSITIONS,
  STATUS,
  singular,
  TRAVEL_VERBS,
} from './words.js';

export const negatedPolarity = (negated: boolean) => (negated ? { polarity: 'retracted' as const } : {});

export function likeStatement(
  text: string,
  ws: Word[],
  from: number,
  stop: number,
  how: 'like' | 'dislike',
  make: Maker,
): Found {
  const stance = how === 'like' ? 'for' : 'against';
  return listOf(text, ws, from, stop, make, (obj) => ['like', keyOf(obj.words.map(singular))], 'like', { stance });
}

/**
 * The objects of a verb, "X", "X and Y", "X, Y or Z": one statement each (the key names each), each with its own
 * text when there are several ("User loves hiking." and "User loves cooking.").
 */
export function listOf(
  text: string,
  ws: Word[],
  from: number,
  stop: number,
  make: Maker,
  attribute: (obj: NonNullable<ReturnType<typeof objectAt>>, value: string) => string[],
  kind: StatementKind,
  how: { single?: boolean; polarity?: Statement['polarity']; stance?: Statement['stance'] } = {},
): Found {
  const single = how.single ?? true;
  const polarity = {
    ...(how.polarity === undefined ? {} : { polarity: how.polarity }),
    ...(how.stance === undefined ? {} : { stance: how.stance }),
  };
  const objects: NonNullable<ReturnType<typeof objectAt>>[] = [];
  let at = from;
  for (let guard = 0; guard < 6; guard++) {
    const obj = objectAt(ws, at, stop, LIST_END);
    if (!obj) break;
    objects.push(obj);
    let next = obj.to;
    while (next < stop && (ws[next]!.w === ',' || ws[next]!.w === 'and' || ws[next]!.w === 'or')) next += 1;
    if (next === obj.to || next >= stop || LIST_STOP.has(ws[next]!.w)) break;
    at = next;
  }
  if (objects.length === 0) return null;
  // A list only when every item is a short plain noun phrase ("hiking, cooking and old movies"); otherwise the first
  // item carries the key and the clause as said is the memory.
  const plain = objects.every((o) => o.words.length <= 3 && !o.words.some((x) => INSIDE_STOP.has(x)));
  if (objects.length === 1 || !plain) {
    const obj = objects[0]!;
    const value = textOf(text, ws, obj.from, obj.to);
    return make(kind, attribute(obj, value), single, value, polarity);
  }
  const lead = thirdPersonText(text, ws, 0, from);
  return objects.map((obj) => {
    const value = textOf(text, ws, obj.from, obj.to);
    const said = thirdPersonText(text, ws, obj.from, obj.to);
    return make(kind, attribute(obj, value), single, value, { ...polarity, statement: `${capital(lead)} ${said}.` });
  });
}

export function preferenceStatement(
  text: string,
  ws: Word[],
  from: number,
  stop: number,
  make: Maker,
): Statement | null {
  const obj = objectAt(ws, from, stop, new Set(['over', 'to', 'rather', 'instead']));
  if (!obj) return null;
  // What is preferred is the noun before any preposition: "detailed proofs with diagrams" → proof.
  const cut = obj.words.findIndex((x, i) => i > 0 && PREPOSITIONS.has(x));
  const head = singular(obj.words[(cut < 0 ? obj.words.length : cut) - 1]!);
  return make('preference', ['preference', keyOf([head])], true, textOf(text, ws, obj.from, obj.to));
}

export function placeStatement(
  text: string,
  ws: Word[],
  from: number,
  stop: number,
  kind: 'residence' | 'origin',
  make: Maker,
  negated: boolean,
): Statement | null {
  let to = from;
  while (
    to < stop &&
    ws[to]!.w !== ',' &&
    !OBJECT_END.has(ws[to]!.w) &&
    !ADVERBS.has(ws[to]!.w) &&
    !['with', 'for', 'since', 'last', 'next', 'in', 'about', 'ago', 'two', 'three'].includes(ws[to]!.w)
  )
    to += 1;
  // "Berlin, Germany": a comma and a capitalised word after a place go on with it.
  while (
    ws[to]?.w === ',' &&
    to + 1 < stop &&
    isName(text.slice(ws[to + 1]!.start, ws[to + 1]!.end)) &&
    (to + 2 >= stop ||
      ws[to + 2]!.w === ',' ||
      ws[to + 2]!.w === 'and' ||
      isName(text.slice(ws[to + 2]!.start, ws[to + 2]!.end)))
  ) {
    to += 2;
    while (to < stop && isName(text.slice(ws[to]!.start, ws[to]!.end))) to += 1;
  }
  let start = from;
  while (start < to && DETERMINERS.has(ws[start]!.w)) start += 1;
  if (to <= start || to - start > 7) return null;
  const place = textOf(text, ws, start, to);
  if (EMPTY_OBJECT.has(ws[start]!.w)) return null;
  return make(kind, [kind], true, place, negatedPolarity(negated));
}

export function occupationStatement(
  text: string,
  ws: Word[],
  from: number,
  stop: number,
  make: Maker,
  negated: boolean,
): Statement | null {
  const obj = objectAt(ws, from, stop, new Set(['at', 'for', 'in']));
  if (!obj) return null;
  return make('occupation', ['occupation'], true, textOf(text, ws, obj.from, obj.to), negatedPolarity(negated));
}

/**
 * A verb and its object as one thing the speaker does or cannot do: "I can't eat gluten", "I don't drink" (a
 * constraint that holds), "I no longer eat meat" (a habit retracted). Keyed by the verb and what follows it.
 */
export function verbStatement(
  text: string,
  ws: Word[],
  verbAt: number,
  stop: number,
  make: Maker,
  kind: 'constraint' | 'habit',
): Statement | null {
  const obj = objectAt(ws, verbAt + 1, stop);
  if (!obj) return null;
  const key = [kind, keyOf([ws[verbAt]!.w, ...obj.words.map(singular)])];
  const polarity = kind === 'habit' ? 'retracted' : 'holds';
  return make('constraint', key, false, textOf(text, ws, obj.from, obj.to), { polarity });
}

export function nameStatement(text: string, ws: Word[], from: number, make: Maker): Statement | null {
  let to = from;
  while (to < ws.length && to - from < 3 && isName(text.slice(ws[to]!.start, ws[to]!.end))) to += 1;
  if (to === from) return null;
  const name = textOf(text, ws, from, to);
  return make('name', ['name'], true, name, { polarity: 'holds', statement: `User's name is ${name}.` });
}

export function noteStatement(text: string, c: Clause, make: Maker): Statement | null {
  const ws = c.words;
  const content = ws.filter(
    (x) =>
      /^\p{L}[\p{L}\p{M}\p{N}]*$/u.test(x.w) &&
      !DETERMINERS.has(x.w) &&
      !EMPTY_OBJECT.has(x.w) &&
      x.w !== 'i' &&
      x.w !== 'to',
  );
  if (content.length < 2) return null;
  // "remember, staying positive matters" is advice; a note is about the speaker or tells the assistant what to do.
  if (!c.fromNow && !ws.some((x) => ['i', 'my', 'me', 'mine', 'myself'].includes(x.w))) return null;
  return make(
    'note',
    ['note', keyOf(content.slice(0, 4).map((x) => singular(x.w)))],
    false,
    textOf(text, ws, 0, ws.length),
    {
      polarity: 'holds',
      ...(c.fromNow ? { statement: `From now on: ${thirdPersonText(text, ws, 0, ws.length)}.` } : {}),
    },
  );
}

export function planStatement(
  text: string,
  ws: Word[],
  k: number,
  end: number,
  make: Maker,
  time: SaidTime | undefined,
): Found {
  // The plan's key: its verb ("to" + a verb after plan / intend / hope / want / going; otherwise the verb itself) and
  // the head of what follows.
  const stop = time && time.index >= ws[k]!.start ? ws.findIndex((x) => x.start >= time.index) : -1;
  const until = stop < 0 ? end : stop;
  // "going to visit" (a verb after "to"), not "going to a conference" or "going to Rome".
  const next = ws[k + 2];
  const infinitive =
    (PLAN_VERBS.has(ws[k]!.w) || ws[k]!.w === 'going') &&
    ws[k + 1]?.w === 'to' &&
    next !== undefined &&
    !DETERMINERS.has(next.w) &&
    !isName(text.slice(next.start, next.end));
  let verbAt = infinitive ? k + 2 : ws[k]!.w === 'will' ? k + 1 : k;
  while (verbAt < until && ADVERBS.has(ws[verbAt]!.w) && ws[verbAt]!.w !== 'do') verbAt += 1;
  const main = ws[verbAt]?.w;
  if (main === undefined || verbAt >= until) return null;
  const after = ws[verbAt + 1]?.w === 'to' ? verbAt + 2 : verbAt + 1;
  const obj = objectAt(ws, after, until);
  // "I'm starting next month": starting what? A plan says what, and lies ahead ("I'll always remember last year" is none).
  if (!obj) return null;
  if (time && Date.parse(`${time.end}T00:00:00Z`) <= make.saidDay) return null;
  return make('plan', ['plan', keyOf([main, obj.head])], false, textOf(text, ws, verbAt, until));
}

/** "I am …": a diet, a status, an age, an occupation, allergic to, from, moving, travelling. */
export function readBeing(
  text: string,
  c: Clause,
  k: number,
  stop: number,
  make: Maker,
  negated: boolean,
  we: boolean,
  time: SaidTime | undefined,
): Found {
  const ws = c.words;
  const w = (i: number) => ws[i]?.w;
  // "I'm really into jazz", "I'm originally from Lagos".
  while (k < stop && ADVERBS.has(w(k)!) && w(k) !== 'do') k += 1;
  const word = w(k);
  if (word === undefined) return null;
  if (DIETS.has(word) && !we) return make('diet', ['diet'], true, word, negatedPolarity(negated));
  if (STATUS.has(word) && !we) return make('relationship', ['relationship'], true, word, negatedPolarity(negated));
  if (/^\d{1,3}$/.test(word) && (w(k + 1) === 'years' || w(k + 1) === undefined || w(k + 1) === 'now')) {
    return make('age', ['age'], true, word);
  }
  if (word === 'allergic' && w(k + 1) === 'to') {
    return listOf(text, ws, k + 2, stop, make, (obj) => ['constraint', 'allergy', keyOf([obj.head])], 'constraint', {
      single: false,
      ...negatedPolarity(negated),
    });
  }
  if ((word === 'lactose' || word === 'gluten') && w(k + 1) === 'intolerant') {
    return make('constraint', ['constraint', 'intolerance', word], false, word, negatedPolarity(negated));
  }
  if (word === 'intolerant' && w(k + 1) === 'to') {
    const obj = objectAt(ws, k + 2, stop);
    if (!obj) return null;
    return make(
      'constraint',
      ['constraint', 'intolerance', keyOf([obj.head])],
      false,
      textOf(text, ws, obj.from, obj.to),
      negatedPolarity(negated),
    );
  }
  if (
    (word === 'into' ||
      (word === 'fond' && w(k + 1) === 'of') ||
      ((word === 'obsessed' || word === 'crazy' || word === 'passionate') &&
        (w(k + 1) === 'with' || w(k + 1) === 'about'))) &&
    !we
  ) {
    return likeStatement(text, ws, word === 'into' ? k + 1 : k + 2, stop, negated ? 'dislike' : 'like', make);
  }
  if (word === 'a' || word === 'an') {
    // "a (big|huge) fan of X": a like.
    let f = k + 1;
    while (f < stop && ['big', 'huge', 'massive', 'great', 'real'].includes(w(f)!)) f += 1;
    if (w(f) === 'fan' && w(f + 1) === 'of')
      return likeStatement(text, ws, f + 2, stop, negated ? 'dislike' : 'like', make);
    if (['bit', 'little', 'lot', 'tad', 'few', 'couple'].includes(w(k + 1)!)) return null;
    const obj = objectAt(ws, k, stop, new Set(['at', 'for', 'in', 'with', 'from', 'who', 'of']));
    if (!obj || we) return null;
    const value = textOf(text, ws, obj.from, obj.to);
    // "a big video game fan": a like of what comes before "fan"; "a fan" alone names nothing.
    if (obj.head === 'fan') {
      const liked = obj.words.slice(0, -1).filter((x) => !['big', 'huge', 'massive', 'great', 'real'].includes(x));
      if (liked.length === 0) return null;
      return make('like', ['like', keyOf(liked.map(singular))], true, liked.join(' '), {
        ...(negated ? { stance: 'against' as const } : {}),
      });
    }
    if (DIETS.has(obj.head)) return make('diet', ['diet'], true, obj.head, negatedPolarity(negated));
    // An occupation: a word for one ("a nurse"), or anything one is at a place of work ("a shooting guard for the team"
    // is a role; "a product manager at Acme" an occupation).
    if (OCCUPATIONS.has(obj.head) || ((w(obj.to) === 'at' || w(obj.to) === 'for') && !NOT_OCCUPATIONS.has(obj.head))) {
      const employer = w(obj.to) === 'at' || w(obj.to) === 'for' ? objectAt(ws, obj.to + 1, stop) : null;
      const withEmployer = employer ? ` at ${textOf(text, ws, employer.from, employer.to)}` : '';
      return make('occupation', ['occupation'], true, value + withEmployer, negatedPolarity(negated));
    }
    if (DIETS.has(obj.head)) return make('diet', ['diet'], true, obj.head, negatedPolarity(negated));
    return make('identity', ['identity', keyOf([obj.head])], false, value, negatedPolarity(negated));
  }
  if (OCCUPATIONS.has(word) && (word === 'retired' || w(k + 1) === undefined))
    return make('occupation', ['occupation'], true, word, negatedPolarity(negated));
  if (word === 'from') return placeStatement(text, ws, k + 1, stop, 'origin', make, negated);
  // "I'm gluten-free", "I'm dairy free": something the speaker avoids.
  if (w(k + 1) === 'free' && /^\p{L}+$/u.test(word) && !negated) {
    return make('constraint', ['constraint', 'avoid', word], false, `${word}-free`);
  }
  // "I'm no longer at Google": the employer no longer holds.
  if (word === 'at' && negated) {
    const org = ws[k + 1];
    if (org && isName(text.slice(org.start, org.end))) {
      const obj = objectAt(ws, k + 1, stop);
      if (obj)
        return make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to), { polarity: 'retracted' });
    }
  }
  if (word === 'working' && w(k + 1) === 'as') return occupationStatement(text, ws, k + 2, stop, make, negated);
  if (word === 'working' && (w(k + 1) === 'at' || w(k + 1) === 'for')) {
    const obj = objectAt(ws, k + 2, stop);
    return obj
      ? make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to), negatedPolarity(negated))
      : null;
  }
  if (MOVE_VERBS.has(word)) {
    const to = w(k + 1) === 'back' ? k + 2 : k + 1;
    if (w(to) !== 'to') return null;
    return placeStatement(text, ws, to + 1, stop, 'residence', make, negated);
  }
  if ((word === 'living' || word === 'based') && (w(k + 1) === 'in' || w(k + 1) === 'at')) {
    return placeStatement(text, ws, k + 2, stop, 'residence', make, negated);
  }
  if (TRAVEL_VERBS.has(word) && !negated) {
    // A plan needs a date: "I'm flying to Rome next Tuesday"; "I'm going to the shop" alone is small talk; "I'm
    // starting to feel…" is no plan.
    if (!time) return null;
    const after = ws[k + 2];
    if (
      word !== 'going' &&
      w(k + 1) === 'to' &&
      after &&
      !DETERMINERS.has(after.w) &&
      !isName(text.slice(after.start, after.end))
    )
      return null;
    return planStatement(text, ws, k, ws.length, make, time);
  }
  if (
    word === 'planning' ||
    word === 'intending' ||
    ((word === 'hoping' || word === 'going') && time && w(k + 1) === 'to')
  )
    return planStatement(text, ws, k, ws.length, make, time);
  return c.explicit ? noteStatement(text, c, make) : null;
}

/** "I have a dog named Rex", "I got a kitten", "I have two kids". */
export function readHaving(text: string, ws: Word[], k: number, stop: number, make: Maker): Statement | null {
  const w = (i: number) => ws[i]?.w;
  let p = w(k) === 'got' ? k + 1 : k;
  if (
    w(p) === 'a' ||
    w(p) === 'an' ||
    w(p) === 'new' ||
    /^\d+$/.test(w(p) ?? '') ||
    ['two', 'three', 'four'].includes(w(p) ?? '')
  )
    p += 1;
  while (
    p < stop &&
    ['new', 'little', 'big', 'old', 'young', 'small', 'rescue', 'baby', 'pet', 'black', 'white', 'ginger'].includes(
      w(p)!,
    )
  )
    p += 1;
  // "a golden retriever": a word or two before the animal.
  for (let look = 0; look < 2 && !PETS.has(singular(w(p) ?? '')) && PETS.has(singular(w(p + 1) ?? '')); look++) p += 1;
  if (!PETS.has(singular(w(p) ?? '')) && PETS.has(singular(w(p + 2) ?? '')) && w(p + 1) !== undefined) p += 2;
  const animal = singular(w(p) ?? '');
  if (PETS.has(animal) || (animal === 'guinea' && w(p + 1) === 'pig')) {
    const kindWord = animal === 'guinea' ? 'guinea-pig' : animal;
    const after = animal === 'guinea' ? p + 2 : p + 1;
    const name = CONNECT_NAME.has(w(after) ?? '') ? readName(text, ws, after + 1) : null;
    const value = name ?? kindWord;
    return make('pet', ['pet', kindWord, ...(name ? [keyOf([name])] : [])], false, value);
  }
  if (['kid', 'kids', 'child', 'children', 'son', 'sons', 'daughter', 'daughters'].includes(w(p) ?? '') && p > k) {
    return make('identity', ['family', singular(w(p)!)], true, textOf(text, ws, k, p + 1));
  }
  return null;
}

export function readName(text: string, ws: Word[], from: number): string | null {
  let to = from;
  while (to < ws.length && to - from < 3 && isName(text.slice(ws[to]!.start, ws[to]!.end))) to += 1;
  return to === from ? null : textOf(text, ws, from, to);
}

/** "my name is …", "my favorite … is …", "my wife Anna", "my dog is called Rex", "my job is …". */
export function readPossessive(text: string, c: Clause, first: number, make: Maker): Found {
  const ws = c.words;
  const w = (i: number) => ws[i]?.w;
  const k = first + 1;
  const what = w(k);
  if (what === undefined) return null;
  if (what === 'name' && w(k + 1) === 'is') return nameStatement(text, ws, k + 2, make);
  if ((what === 'favorite' || what === 'favourite') && w(k + 1) !== undefined) {
    let isAt = k + 1;
    while (isAt < ws.length && w(isAt) !== 'is' && w(isAt) !== 'are' && isAt - k < 5) isAt += 1;
    if (w(isAt) !== 'is' && w(isAt) !== 'are') return null;
    const topic = ws.slice(k + 1, isAt).map((x) => singular(x.w));
    const obj = objectAt(ws, isAt + 1, ws.length);
    if (!obj || topic.length === 0) return null;
    const value = textOf(text, ws, obj.from, obj.to);
    return make('favorite', ['favorite', keyOf(topic)], true, value);
  }
  if ((what === 'job' || what === 'occupation' || what === 'profession') && w(k + 1) === 'is') {
    return occupationStatement(text, ws, k + 2, ws.length, make, false);
  }
  if ((what === 'birthday' || what === 'bday') && (w(k + 1) === 'is' || w(k + 1) === "'s")) {
    const obj = objectAt(ws, w(k + 2) === 'on' ? k + 3 : k + 2, ws.length);
    if (!obj) return null;
    const day = textOf(text, ws, obj.from, obj.to);
    return make('identity', ['birthday'], true, day, { statement: `User's birthday is ${day}.` });
  }
  if ((what === 'home' || what === 'hometown') && w(k + 1) === 'is') {
    return placeStatement(text, ws, k + 2, ws.length, what === 'home' ? 'residence' : 'origin', make, false);
  }
  let p = k;
  while (
    p < ws.length &&
    ['new', 'little', 'big', 'old', 'younger', 'older', 'best', 'baby', 'twin', 'step'].includes(w(p)!)
  )
    p += 1;
  const who = w(p);
  if (who === undefined) return null;
  const isPerson = PERSONS.has(who);
  const isPet = PETS.has(who);
  if (!isPerson && !isPet) return null;
  // "my wife Anna", "my wife, Anna,", "my dog is called Rex", "my sister's name is Mia".
  let n = p + 1;
  if (w(n) === ',') n += 1;
  if (w(n) === "'s" && w(n + 1) === 'name' && w(n + 2) === 'is') n += 3;
  else if (CONNECT_NAME.has(w(n) ?? '') && CONNECT_NAME.has(w(n + 1) ?? '')) n += 2;
  else if (
    w(n) === 'called' ||
    w(n) === 'named' ||
    (w(n) === 'is' && isName(text.slice(ws[n + 1]?.start ?? 0, ws[n + 1]?.end ?? 0)))
  )
    n += 1;
  const name = readName(text, ws, n);
  if (!name) return null;
  const role = textOf(text, ws, k, p + 1).toLowerCase();
  if (isPet)
    return make('pet', ['pet', who, keyOf([name])], false, name, {
      polarity: 'holds',
      statement: `User has a ${role} named ${name}.`,
    });
  const single = ONE_OF.has(who);
  return make('person', ['person', who, ...(single ? [] : [keyOf([name])])], single, name, {
    polarity: 'holds',
    statement: `User's ${role} is named ${name}.`,
  });
}
