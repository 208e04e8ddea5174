import { own } from '../json.js';
import type { Word } from './types.js';

export const WORD = /[a-z0-9]+(?:['’][a-z]+)*|[.,;:!?()"]/gi;

export const CONTRACTIONS: Record<string, string[]> = {
  "i'm": ['i', 'am'],
  "i've": ['i', 'have'],
  "i'd": ['i', 'would'],
  "i'll": ['i', 'will'],
  "we're": ['we', 'are'],
  "we've": ['we', 'have'],
  "we'll": ['we', 'will'],
  "don't": ['do', 'not'],
  "doesn't": ['does', 'not'],
  "didn't": ['did', 'not'],
  "can't": ['can', 'not'],
  cannot: ['can', 'not'],
  "won't": ['will', 'not'],
  "isn't": ['is', 'not'],
  "aren't": ['are', 'not'],
  "wasn't": ['was', 'not'],
  "haven't": ['have', 'not'],
  "hasn't": ['has', 'not'],
  "couldn't": ['could', 'not'],
  "wouldn't": ['would', 'not'],
  "it's": ['it', 'is'],
  "that's": ['that', 'is'],
  "name's": ['name', 'is'],
};

export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(WORD)) {
    const raw = m[0].toLowerCase().replaceAll('’', "'");
    const start = m.index;
    const end = start + m[0].length;
    const open = own(CONTRACTIONS, raw);
    if (open) for (const w of open) out.push({ w, start, end });
    else if (raw.endsWith("'s"))
      out.push({ w: raw.slice(0, -2), start, end: end - 2 }, { w: "'s", start: end - 2, end });
    else out.push({ w: raw, start, end });
  }
  return out;
}

/** A set of the words of a space-separated list. */
export const wordSet = (list: string): ReadonlySet<string> => new Set(list.split(' '));

export const SENTENCE_END = new Set(['.', '!', '?', ';']);

/** Words that start a question after a comma: "I prefer X, how can I …?" */
export const QUESTION_WORDS = wordSet(
  'how what why can could would should do does is are which where when any will who',
);

/** Words that start a new clause after "and" or a comma: a new subject. */
export const SUBJECTS = new Set(['i', 'my', 'we', 'our', 'it', 'he', 'she', 'they', 'you', 'this', 'that', 'there']);

/** Words that open a new clause (when a new subject follows for "and"). */
export const CLAUSE_BREAK = new Set(['but', 'because', 'although', 'though', 'whereas', 'while', 'so', 'cause']);

export const FILLERS = wordSet(
  'actually well oh ok okay so btw also and but um uh hey hi yeah yes no nope honestly anyway anyways ' +
    'correction wait fyi now plus though still lol haha ah right sorry hmm basically nowadays lately currently ' +
    'recently',
);

export const ADVERBS = wordSet(
  'really also still now usually always generally mostly totally absolutely definitely honestly ' +
    'actually just truly currently recently finally officially even personally genuinely seriously kinda ' +
    'certainly originally basically now kind sort do',
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
    'these nowadays lately too either instead again as best most better more less',
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
  'vegan vegetarian pescatarian pescetarian carnivore keto kosher halal flexitarian omnivore',
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

export const isName = (text: string) => /^[A-Z][\p{L}'-]*$/u.test(text);

export const CONNECT_NAME = new Set(['called', 'named', 'is']);

/** A key segment: lower-case words joined by hyphens (a-z, 0-9). */
export function keyOf(parts: readonly string[]): string {
  return parts
    .map((p) =>
      p
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
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
