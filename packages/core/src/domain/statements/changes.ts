/**
 * Changes said with the other common verbs of a job and a diet, with their retractions: "got hired as", "was made",
 * "was promoted to", "started as", "became" (an occupation); "started at", "started working for", "got a job at" (an
 * employer); "got laid off", "was let go", "quit Acme" (the employer no longer holds); "I'm on a keto diet", "I'm
 * doing keto", "went vegan", "not doing keto anymore", "gave up keto" (a diet, and the same diet retracted).
 *
 * Each reader looks a few words ahead of the verb: `undefined` when the words are not its phrase (the clause is read
 * on), null when they are but name nothing.
 */
import { objectAt, textOf } from './clauses.js';
import { occupationStatement } from './readers.js';
import type { Found, Maker, Word } from './types.js';
import {
  DETERMINERS,
  DIETS,
  EMPTY_OBJECT,
  isName,
  NOT_OCCUPATIONS,
  OBJECT_END,
  OCCUPATIONS,
  PERSONS,
  PREPOSITIONS,
  singular,
  wordSet,
} from './words.js';

/** Words for a role one is made or appointed to ("made head of sales", "named team lead"). */
const ROLES = wordSet(
  'head lead partner chief captain president vp supervisor principal chair chairman chairwoman deputy director ' +
    'manager editor foreman associate executive coordinator specialist administrator assistant sergeant ' +
    'lieutenant superintendent',
);

/** Auxiliaries before a participle: "got hired", "was promoted", "have been made", "just got". */
const PASSIVE = wordSet('got get gets getting was were been am is are have has had just finally recently officially');

/** Words that may follow a diet word when it names the diet ("doing keto since May", "vegan again"). */
const FOLLOWS_DIET = new Set([
  ...OBJECT_END,
  ...PREPOSITIONS,
  ...wordSet('last this next again already full strictly mostly myself until till starting'),
]);

/** Places "started at" names that are no employer: "started at 9", "started at home", "started at the bottom". */
const NOT_EMPLOYER = wordSet('home school uni university college work noon midnight dawn night zero scratch once');

/** "a keto diet", "keto", "the carnivore diet", "low carb", "plant based": the diet word at `p`, or null. */
export function dietAt(ws: readonly Word[], p: number): { value: string; to: number } | null {
  const w = (i: number) => ws[i]?.w;
  let q = p;
  if (DETERMINERS.has(w(q) ?? '')) q += 1;
  const word = w(q);
  if (word === undefined) return null;
  let value: string | null = null;
  let to = q + 1;
  if (DIETS.has(word)) value = word;
  else if (word === 'low' && (w(q + 1) === 'carb' || w(q + 1) === 'fodmap' || w(q + 1) === 'fat')) {
    value = `low-${w(q + 1)}`;
    to = q + 2;
  } else if (word === 'plant' && w(q + 1) === 'based') {
    value = 'plant-based';
    to = q + 2;
  }
  if (value === null) return null;
  const named = w(to) === 'diet';
  if (named) to += 1;
  // "vegan cheese", "a keto recipe": a diet word before another noun names no diet.
  const after = w(to);
  if (!named && after !== undefined && /^\p{L}/u.test(after) && !FOLLOWS_DIET.has(after)) return null;
  return { value, to };
}

/**
 * After "I am" (at `k`): "on a keto diet", "doing keto", "following a vegan diet", "going vegan", "off keto" (a
 * retraction).
 */
export function dietAfterBe(
  ws: readonly Word[],
  k: number,
  make: Maker,
  negated: boolean,
  we: boolean,
): Found | undefined {
  const word = ws[k]?.w;
  if (we || (word !== 'on' && word !== 'doing' && word !== 'following' && word !== 'going' && word !== 'off'))
    return undefined;
  const diet = dietAt(ws, k + 1);
  if (!diet) return undefined;
  const retracted = negated || word === 'off';
  return make('diet', ['diet'], true, diet.value, retracted ? { polarity: 'retracted' } : {});
}

/**
 * A verb at `k` that starts or ends a diet: "went vegan", "have gone vegetarian", "became vegan", "started keto",
 * "do keto"; "stopped / quit / gave up / dropped (being) vegan" retract it.
 */
export function dietVerb(
  ws: readonly Word[],
  k: number,
  make: Maker,
  negated: boolean,
  we: boolean,
): Found | undefined {
  if (we) return undefined;
  const w = (i: number) => ws[i]?.w;
  let verb = w(k);
  let p = k + 1;
  if ((verb === 'have' || verb === 'has') && w(p) === 'gone') {
    verb = 'gone';
    p += 1;
  }
  const ends = verb === 'stopped' || verb === 'quit' || verb === 'dropped' || verb === 'ditched' || verb === 'gave';
  if (verb === 'gave') {
    if (w(p) !== 'up') return undefined;
    p += 1;
  }
  const starts = verb === 'went' || verb === 'gone' || verb === 'became' || verb === 'started' || verb === 'do';
  if (!starts && !ends) return undefined;
  if (ends && w(p) === 'being') p += 1;
  if (verb === 'started' && w(p) === 'on') p += 1;
  const diet = dietAt(ws, p);
  if (!diet) return undefined;
  if (negated && verb !== 'do') return null;
  return make('diet', ['diet'], true, diet.value, ends || negated ? { polarity: 'retracted' } : {});
}

/**
 * A change of job said with a participle or a start: at `k` the verb after the subject ("got", "was", "started",
 * "became", "quit"). Occupations and employers as `readBeing` and "I work as / at" give them.
 */
export function careerChange(
  text: string,
  ws: Word[],
  at: number,
  stop: number,
  make: Maker,
  negated: boolean,
  we: boolean,
): Found | undefined {
  if (negated || we) return undefined;
  let k = at;
  const w = (i: number) => ws[i]?.w;
  const employer = (from: number): Found => {
    const obj = objectAt(ws, from, stop);
    if (!obj || NOT_EMPLOYER.has(ws[obj.from]!.w) || /^\d/.test(ws[obj.from]!.w)) return null;
    return make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to));
  };
  const laidOff = (from: number): Found => {
    const named =
      (w(from) === 'from' || w(from) === 'by' || w(from) === 'at') && ws[from + 1]
        ? objectAt(ws, from + 1, stop)
        : null;
    return make('employer', ['employer'], true, named ? textOf(text, ws, named.from, named.to) : 'job', {
      polarity: 'retracted',
    });
  };
  /** A role after "promoted to", "started as": a word for a job or a rank ("team lead", "a sous chef"), or none. */
  const role = (from: number): Found => {
    const obj = objectAt(ws, from, stop, wordSet('at for in with by'));
    if (!obj) return null;
    const cut = obj.words.indexOf('of');
    const head = singular(obj.words[(cut > 0 ? cut : obj.words.length) - 1]!);
    if ((!ROLES.has(head) && !OCCUPATIONS.has(head)) || NOT_OCCUPATIONS.has(head)) return null;
    return make('occupation', ['occupation'], true, textOf(text, ws, obj.from, obj.to));
  };
  // "got hired as", "was promoted to", "have been made head of sales", "was laid off".
  let p = k;
  for (let guard = 0; guard < 3 && PASSIVE.has(w(p) ?? ''); guard++) p += 1;
  const participle = w(p);
  if (p > k) {
    if (participle === 'hired' || participle === 'taken' || participle === 'employed') {
      if (w(p + 1) === 'as') {
        const obj = objectAt(ws, p + 2, stop, wordSet('at for in with by'));
        if (!obj || NOT_OCCUPATIONS.has(obj.head) || PERSONS.has(obj.head)) return null;
        return occupationStatement(text, ws, p + 2, stop, make, false);
      }
      if (w(p + 1) === 'at' || w(p + 1) === 'by') return employer(p + 2);
      return undefined;
    }
    if (participle === 'promoted' && w(p + 1) === 'to') return role(p + 2);
    if ((participle === 'made' || participle === 'appointed' || participle === 'named') && w(p + 1) !== 'to') {
      if (w(p + 1) === 'redundant') return laidOff(p + 2);
      return role(p + 1) ?? undefined;
    }
    if (participle === 'fired' || (participle === 'laid' && w(p + 1) === 'off'))
      return laidOff(participle === 'laid' ? p + 2 : p + 1);
    if (participle === 'let' && w(p + 1) === 'go') return laidOff(p + 2);
  }
  // "I'm starting at Arup next month", "I've started as a junior developer": a start after an auxiliary.
  const verb = p > k && (participle === 'starting' || participle === 'started') ? 'started' : w(k);
  if (verb === 'started' && p > k) k = p;
  // "got a (new) job at Acme / as a nurse", "landed a job with Acme", "started a new job at Acme".
  if (verb === 'got' || verb === 'landed' || verb === 'started' || verb === 'found') {
    let j = k + 1;
    if (w(j) === 'a' || w(j) === 'an') j += 1;
    if (w(j) === 'new' || w(j) === 'full' || w(j) === 'part') j += 1;
    if (w(j) === 'time') j += 1;
    if (j > k + 1 && (w(j) === 'job' || w(j) === 'position' || w(j) === 'role')) {
      if (w(j + 1) === 'as') return occupationStatement(text, ws, j + 2, stop, make, false);
      if (w(j + 1) === 'at' || w(j + 1) === 'with' || w(j + 1) === 'for') return employer(j + 2);
      return undefined;
    }
  }
  if (verb === 'started') {
    // "started as a junior developer", "started working as / at / for", "started at Kestrel Bank".
    const q = w(k + 1) === 'working' ? k + 2 : k + 1;
    if (w(q) === 'as') return role(q + 1);
    if (w(q) === 'at' || (q > k + 1 && w(q) === 'for')) {
      const org = ws[q + 1];
      if (!org || DETERMINERS.has(org.w) || EMPTY_OBJECT.has(org.w)) return null;
      return employer(q + 1);
    }
    return undefined;
  }
  if (verb === 'became' || verb === 'become') {
    const a = w(k + 1) === 'a' || w(k + 1) === 'an' ? k + 2 : k + 1;
    const obj = objectAt(ws, a, stop, wordSet('at for in with'));
    if (!obj || !OCCUPATIONS.has(obj.head) || NOT_OCCUPATIONS.has(obj.head)) return undefined;
    return occupationStatement(text, ws, a, stop, make, false);
  }
  // "I quit Acme": a named employer no longer holds ("I quit smoking" is a habit, read on).
  if (verb === 'quit') {
    const org = ws[k + 1];
    if (org && isName(text.slice(org.start, org.end)) && w(k + 1) !== 'i') {
      const obj = objectAt(ws, k + 1, stop);
      if (obj)
        return make('employer', ['employer'], true, textOf(text, ws, obj.from, obj.to), { polarity: 'retracted' });
    }
  }
  return undefined;
}
