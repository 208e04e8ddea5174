import { own } from '../json.js';
import type { Word } from './types.js';

/** A set of the words of a space-separated list. */
export const wordSet = (list: string): ReadonlySet<string> => new Set(list.split(' '));

/**
 * A word (letters of any script, digits, joined by apostrophes or "&": "Tomás", "don't", "I’m", "A&E"), a clock time
 * ("10:30"), a punctuation mark ("&" alone reads "and"), or a dash standing between words ("Quick update - I moved",
 * "moved—finally"). A hyphen inside a word ("gluten-free") is no token. Each repeated part starts with a mark its
 * letters cannot match, so the match never backtracks: one pass.
 */
export const WORD =
  /\d{1,2}:\d{2}|[\p{L}\p{M}\p{N}]+(?:['’ʼ`][\p{L}\p{M}]+|&[\p{L}\p{M}\p{N}]+)*|[.,;:!?()"&]|[–—]+|(?<![\p{L}\p{N}])-+(?![\p{L}\p{N}])/gu;

export const CONTRACTIONS: Record<string, string[]> = {
  "i'm": ['i', 'am'],
  "i've": ['i', 'have'],
  "i'd": ['i', 'would'],
  "i'll": ['i', 'will'],
  "we're": ['we', 'are'],
  "we've": ['we', 'have'],
  "we'll": ['we', 'will'],
  "you're": ['you', 'are'],
  "they're": ['they', 'are'],
  "don't": ['do', 'not'],
  "doesn't": ['does', 'not'],
  "didn't": ['did', 'not'],
  "can't": ['can', 'not'],
  cannot: ['can', 'not'],
  "won't": ['will', 'not'],
  "isn't": ['is', 'not'],
  "aren't": ['are', 'not'],
  "wasn't": ['was', 'not'],
  "weren't": ['were', 'not'],
  "haven't": ['have', 'not'],
  "hasn't": ['has', 'not'],
  "hadn't": ['had', 'not'],
  "couldn't": ['could', 'not'],
  "wouldn't": ['would', 'not'],
  "shouldn't": ['should', 'not'],
  "it's": ['it', 'is'],
  "that's": ['that', 'is'],
  "name's": ['name', 'is'],
};

/**
 * Contractions typed without their apostrophe in chat ("im", "dont", "thats"): only spellings that are no other
 * English word. "id" and "ill" are words too; they are read in context (`chatContraction`).
 */
const BARE_CONTRACTIONS: Record<string, string[]> = {
  im: ['i', 'am'],
  ive: ['i', 'have'],
  dont: ['do', 'not'],
  doesnt: ['does', 'not'],
  didnt: ['did', 'not'],
  cant: ['can', 'not'],
  wont: ['will', 'not'],
  isnt: ['is', 'not'],
  arent: ['are', 'not'],
  wasnt: ['was', 'not'],
  werent: ['were', 'not'],
  havent: ['have', 'not'],
  hasnt: ['has', 'not'],
  hadnt: ['had', 'not'],
  couldnt: ['could', 'not'],
  wouldnt: ['would', 'not'],
  shouldnt: ['should', 'not'],
  thats: ['that', 'is'],
  whats: ['what', 'is'],
  wheres: ['where', 'is'],
  hows: ['how', 'is'],
  youre: ['you', 'are'],
  hes: ['he', 'is'],
  shes: ['she', 'is'],
  theyre: ['they', 'are'],
  u: ['you'],
};

/** Words after which "ill" is the adjective ("I'm ill", "fell ill"), not "I'll". */
const ILL_AFTER = wordSet(
  'am is are was were be been being feel feels feeling felt fell fall falls get gets got getting became become look ' +
    "looks very so too 's the a an",
);
/** Words after "ill" that make it the adjective or a noun ("ill health"). */
const ILL_BEFORE = wordSet('health effects will feeling at with and or today now again lately too since for all');
/** Words after "id" that make it "I'd" ("id rather", "id love to"); "my id expired" stays a word. */
const ID_BEFORE = wordSet(
  'rather love like prefer hate say be have go never also really probably definitely want need',
);

/** "id" / "ill" as "I'd" / "I'll", read from the words around them; null when they are the words themselves. */
function chatContraction(raw: string, before: string | undefined, after: string | undefined): string[] | null {
  const wordAfter = after !== undefined && /^\p{L}/u.test(after);
  if (raw === 'id')
    return wordAfter && ID_BEFORE.has(after!) && !DETERMINERS_AND_OWNERS.has(before ?? '') ? ['i', 'would'] : null;
  if (raw === 'ill')
    return wordAfter && !ILL_BEFORE.has(after!) && !ILL_AFTER.has(before ?? '') && !/^\p{L}+ly$/u.test(before ?? '')
      ? ['i', 'will']
      : null;
  return null;
}

const DETERMINERS_AND_OWNERS = wordSet('the a an my your his her their our its this that student photo');

const apostrophes = (s: string) => s.replace(/[’ʼ`]/g, "'");

export function words(text: string): Word[] {
  const out: Word[] = [];
  const found = [...text.matchAll(WORD)];
  const lower = found.map((m) => apostrophes(m[0].toLowerCase()));
  for (let i = 0; i < found.length; i++) {
    const m = found[i]!;
    const raw = lower[i]!;
    const start = m.index;
    const end = start + m[0].length;
    // Dashes of every length are one mark.
    if (/^[-–—]+$/.test(raw)) {
      out.push({ w: '-', start, end });
      continue;
    }
    if (raw === '&') {
      out.push({ w: 'and', start, end });
      continue;
    }
    const open =
      own(CONTRACTIONS, raw) ??
      own(BARE_CONTRACTIONS, raw) ??
      chatContraction(raw, lower[i - 1], lower[i + 1]) ??
      undefined;
    if (open) for (const w of open) out.push({ w, start, end });
    else if (raw.endsWith("'s"))
      out.push({ w: raw.slice(0, -2), start, end: end - 2 }, { w: "'s", start: end - 2, end });
    else out.push({ w: raw, start, end });
  }
  return out;
}

export const SENTENCE_END = new Set(['.', '!', '?', ';']);

/** Words that start a question after a comma: "I prefer X, how can I …?" */
export const QUESTION_WORDS = wordSet(
  'how what why can could would should do does is are which where when any will who',
);

/** Words for someone else: a sentence with one may have dropped their name, not "I", before the next. */
export const THIRD_PARTY = wordSet('he she they him her his hers their them');

/** Words that start a new clause after "and" or a comma: a new subject. */
export const SUBJECTS = new Set([
  'i',
  'my',
  'we',
  'our',
  'it',
  'its',
  'he',
  'she',
  'they',
  'you',
  'this',
  'that',
  'there',
]);

/** Words that open a new clause (when a new subject follows for "and"). */
export const CLAUSE_BREAK = new Set(['but', 'because', 'although', 'though', 'whereas', 'while', 'so', 'cause']);

export const FILLERS = wordSet(
  'actually well oh ok okay so btw also and but um uh hey hi yeah yes no nope honestly anyway anyways ' +
    'correction wait fyi now plus though still lol haha ah right sorry hmm basically nowadays lately currently ' +
    'recently tbh ngl imo fwiw omg wow welp alright hm oops lmao ugh update',
);

/** Words that may end a clause without being part of what it says ("allergic to peanuts btw", "I love it now"). */
export const TAIL_FILLERS = wordSet(
  'btw fyi lol lmao lmfao rofl haha hahaha hehe xd tbh imo imho ngl honestly though tho anyway anyways anyhow now ' +
    'lately nowadays currently too also ok okay yeah actually fwiw rn atm obviously',
);

/** Two-word tails of the same kind: "these days", "I guess". */
export const TAIL_PAIRS = new Set([
  'these days',
  'right now',
  'for now',
  'as well',
  'i think',
  'i guess',
  'i suppose',
  'i believe',
  'i reckon',
  'you know',
  'by now',
]);

/** Three-word tails: "at the moment", "to be honest". */
export const TAIL_TRIPLES = new Set(['at the moment', 'to be honest', 'to be fair', 'at this point', 'by the way']);

/** Laughter in any length: "haha", "hahaha", "ahah", "hehe", "lool", "lmaooo", "xddd". One pass, no nesting. */
export const isLaugh = (w: string) => /^(?:ha)+h?$|^a(?:ha)+$|^(?:he)+$|^lo+l$|^lmf?ao+$|^xd+$/.test(w);

/**
 * Verbs that carry a life fact even when chat drops the "I" before them ("moved to leeds last month", "just got a
 * puppy"): read only at the very start of a sentence.
 */
export const DROPPED_I_VERBS = wordSet('moved relocated started joined quit got adopted live work');

/** Words that tell what someone else said: a clause with no "I" and one of them is hearsay ("moved to Rome apparently"). */
export const HEARSAY = wordSet('apparently supposedly reportedly allegedly heard says said');

/**
 * Main verbs of a change: a time said with one is when the fact starts ("in March we moved", "last week I got a
 * puppy"); with any other verb it is only a circumstance ("I hate driving in winter").
 */
export const CHANGE_VERBS = wordSet(
  'moved move moving relocated relocate relocating started start starting joined join joining got get getting ' +
    'adopted adopt adopting became become becoming switched switch switching married marry marrying engaged ' +
    'divorced hired promoted made quit quitting left leave leaving turned turn turning began begin beginning ' +
    'stopped stop stopping gave give giving retired retire retiring graduated graduate transferred went go gone ' +
    'going returned return returning came come coming born bought sold welcomed rescued switched changed change ' +
    'changing took',
);

/**
 * What starts a question after a comma ("I live in Austin, whats a good gym", "…, any tips?"): a question word, or an
 * auxiliary before its subject ("can you", "is there").
 */
export const QUESTION_OPENERS = wordSet(
  'what where how why which any anyone anybody anything recommendations recs suggestions tips ideas thoughts advice',
);
const ASKING_AUX = wordSet('can could would will do does did should is are');
const ASKED = wordSet('you i we there anyone someone it that this');

/** A question word before an auxiliary ("… whats a good gym", "… where can I park"): a question, comma or not. */
export function invertedAt(ws: readonly Word[], k: number): boolean {
  const a = ws[k]?.w;
  return (
    (a === 'what' || a === 'where' || a === 'how' || a === 'which' || a === 'why') &&
    (ASKING_AUX.has(ws[k + 1]?.w ?? '') || ws[k + 1]?.w === 'was' || ws[k + 1]?.w === "'s")
  );
}

/** True when the words from `k` open a question: "what…", "any tips", "can you…", "is there…". */
export function asksAt(ws: readonly Word[], k: number): boolean {
  const a = ws[k]?.w;
  if (a === undefined) return false;
  if (QUESTION_OPENERS.has(a)) return true;
  return ASKING_AUX.has(a) && ASKED.has(ws[k + 1]?.w ?? '');
}

export const ADVERBS = wordSet(
  'really also still now usually always generally mostly totally absolutely definitely honestly ' +
    'actually just truly currently recently finally officially even personally genuinely seriously kinda ' +
    'certainly originally basically now kind sort do mostly mainly primarily largely partly already literally ' +
    'technically then eventually',
);

/** Objects that point back or name nothing: "I love it", "I like that". */
export const EMPTY_OBJECT = wordSet(
  'it that this them you him her those these everything nothing something anything one ones idea lot ' +
    'much way too so very all here there what how when who',
);

/** Words that end the object of a verb. */
/** Verbs after "I'd rather" that choose a thing: "I'd rather have tea". */
export const RATHER_VERBS = new Set([
  'have',
  'take',
  'get',
  'use',
  'eat',
  'drink',
  'book',
  'choose',
  'pick',
  'watch',
  'read',
]);

export const PREPOSITIONS = wordSet('for with over to in on at from by about during of than like');

/** Words after which a list does not go on ("…, they recharge me", "…, to be honest"). */
export const LIST_STOP = wordSet('i my we they it he she you to which that this so but then also plus especially even');

/** Words that make an item more than a plain noun phrase. */
export const INSIDE_STOP = wordSet('about of with in on at for from during by it they me my you your is are');

/** What ends one object of a list (\"cats and dogs\"). */
export const LIST_END = new Set(['and', 'or', ',']);

export const OBJECT_END = wordSet(
  'because but when if since and or than whenever unless which who that though although anymore now ' +
    'these nowadays lately too either instead again as best most better more less btw fyi lol lmao haha hehe ' +
    'tbh imo imho ngl tho rn atm honestly whose where apparently supposedly',
);

export const TRAILING = wordSet('a lot very much so really the more any days well for me');

export const DETERMINERS = new Set(['the', 'a', 'an', 'some', 'any']);

export const PERSONS = wordSet(
  'wife husband partner spouse boyfriend girlfriend fiance fiancee son daughter kid child mom mother ' +
    'mum dad father brother sister friend boss manager colleague coworker roommate flatmate neighbor ' +
    'neighbour grandma grandmother grandpa grandfather aunt uncle cousin niece nephew therapist doctor',
);

/** People one has one of at a time: a new name supersedes. */
export const ONE_OF = wordSet('wife husband partner spouse boyfriend girlfriend fiance fiancee boss manager therapist');

export const PETS = wordSet(
  'dog cat puppy kitten rabbit bunny hamster parrot bird horse fish turtle tortoise lizard snake guinea ' +
    'ferret pony goldfish gecko retriever labrador poodle terrier beagle bulldog spaniel shepherd husky collie ' +
    'dachshund chihuahua pug corgi doodle greyhound schnauzer tabby siamese',
);

export const DIETS = wordSet(
  'vegan vegetarian pescatarian pescetarian carnivore keto kosher halal flexitarian omnivore paleo atkins fruitarian',
);

export const STATUS = new Set(['married', 'engaged', 'single', 'divorced', 'widowed', 'separated']);

export const NOT_OCCUPATIONS = wordSet(
  'user member fan lover beginner mother father brother sister daughter owner customer resident ' +
    'newcomer introvert extrovert person parent patient student other winner loser foreigner believer ' +
    'local regular native citizen fanatic addict night morning early',
);

export const OCCUPATIONS = wordSet(
  'nurse chef cook pilot lawyer judge dentist surgeon barista plumber electrician firefighter paramedic ' +
    'pharmacist vet veterinarian accountant consultant analyst developer engineer scientist architect ' +
    'student intern freelancer nanny tutor professor lecturer chemist mechanic carpenter model actor ' +
    'actress artist musician writer author journalist doctor physician therapist clerk cashier waiter ' +
    'waitress bartender soldier officer detective farmer baker butcher designer programmer manager ' +
    'director founder ceo cto retiree retired teacher professor librarian photographer editor translator recruiter ' +
    'banker broker realtor electrician technician researcher economist psychologist psychiatrist counselor ' +
    'paralegal pharmacist dietitian nutritionist optometrist radiologist midwife caregiver receptionist secretary ' +
    'salesperson marketer copywriter illustrator animator filmmaker producer dancer singer coach trainer ' +
    'instructor mathematician physicist biologist geologist surveyor contractor welder machinist driver ' +
    'courier janitor cleaner gardener landscaper tailor jeweler florist hairdresser barber stylist',
);

export const PREFERENCE_VERBS = new Set(['prefer', 'prefers']);

export const LIKE_VERBS = new Set(['like', 'likes', 'love', 'loves', 'enjoy', 'enjoys', 'adore', 'adores']);

export const DISLIKE_VERBS = new Set(['hate', 'hates', 'dislike', 'dislikes', 'detest', 'detests', 'loathe']);

export const MOVE_VERBS = new Set(['moved', 'relocated', 'move', 'moving', 'relocate', 'relocating']);

export const TRAVEL_VERBS = wordSet(
  'flying traveling travelling going heading driving visiting leaving starting taking getting having ' +
    'meeting attending seeing running',
);

export const PLAN_VERBS = new Set(['plan', 'planning', 'intend', 'intending', 'hope', 'hoping', 'want', 'wanna']);

/** Plan verbs that make a plan without a date ("I plan to…"); the others ("I want to…") need one. */
export const FIRM_PLAN = new Set(['plan', 'planning', 'intend', 'intending']);

export const EAT_VERBS = new Set([
  'eat',
  'drink',
  'have',
  'take',
  'tolerate',
  'handle',
  'digest',
  'use',
  'do',
  'stand',
]);

/** A name as written: a capital first letter in any script ("Tomás", "Øystein"), or a letter of a script without case. */
export const isName = (text: string) => /^[\p{Lu}\p{Lt}\p{Lo}][\p{L}\p{M}'’-]*$/u.test(text);

export const CONNECT_NAME = new Set(['called', 'named', 'is']);

/** Letters that no decomposition turns into a-z. */
const FOLD: Readonly<Record<string, string>> = {
  ß: 'ss',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

/**
 * A key segment: lower-case words joined by hyphens (a-z, 0-9). Accents fold away ("Tomás" → tomas, "Søren" → soren);
 * a letter of another script keeps its code point ("美咲" → u7f8e-u54b2), so two names never share a key.
 */
export function keyOf(parts: readonly string[]): string {
  return parts
    .map((p) =>
      p
        .toLowerCase()
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .replace(/[^a-z0-9]/gu, (c) => {
          const folded = own(FOLD, c);
          if (folded !== undefined) return folded;
          return /[\p{L}\p{N}]/u.test(c) ? `-u${c.codePointAt(0)!.toString(16)}-` : '-';
        })
        .replace(/-+/g, '-')
        .replace(/^-+|-+$/g, ''),
    )
    .filter((p) => p.length > 0)
    .join('-');
}

/** A rough singular: "flights" → "flight", "dogs" → "dog"; words in -ss, -us, -is stay. */
export function singular(word: string): string {
  if (/(?:vies|kies|bies|fies|thies|gies|ties|pies)$/.test(word) && !/(?:parties|cities|hobbies|babies)$/.test(word))
    return word.slice(0, -1);
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Present forms whose third person is not the verb and an -s. */
const IRREGULAR: Readonly<Record<string, string>> = {
  am: 'is',
  have: 'has',
  do: 'does',
  go: 'goes',
  was: 'was',
  can: 'can',
};

/** Past forms that take no -s: "I grew up" → "User grew up". */
export const PAST = new Set(
  (
    'grew got went came had did made took saw met began became bought brought felt found gave knew left lost ran said ' +
    'sat sent spent told thought understood wore won wrote ate drank drove flew fell forgot heard kept paid put rode ' +
    'sang slept spoke stood swam taught threw woke quit were was been built caught chose dug fed fought hid held hung ' +
    'led lent let lit meant read rang rose set shook shot shut sold sank split spun stole stuck struck swore tore ' +
    'upset wept wound'
  ).split(' '),
);

/** The third-person form of a present-tense verb: "live" → "lives", "go" → "goes", "try" → "tries". */
export function thirdPerson(verb: string): string {
  const irregular = own(IRREGULAR, verb);
  if (irregular) return irregular;
  if (PAST.has(verb)) return verb;
  if (
    /(?:ed|s)$/.test(verb) ||
    ['will', 'would', 'could', 'should', 'might', 'must', 'may', 'shall', 'had'].includes(verb)
  )
    return verb;
  if (/(?:sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}
