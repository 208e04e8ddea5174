/** What kind of thing a statement says. */
export type StatementKind =
  | 'like'
  | 'preference'
  | 'favorite'
  | 'name'
  | 'age'
  | 'occupation'
  | 'employer'
  | 'residence'
  | 'origin'
  | 'relationship'
  | 'person'
  | 'pet'
  | 'diet'
  | 'constraint'
  | 'identity'
  | 'plan'
  | 'note';

/** One thing a person said about themselves, ready to become (or supersede, or close) a memory. */
export interface Statement {
  kind: StatementKind;
  /** Who it is about: `user` (the speaker). */
  subject: string;
  /**
   * What about them, in lower-case words joined by dots and hyphens: `residence`, `preference.flight`,
   * `like.italian-food`, `person.wife`, `pet.dog.rex`, `constraint.allergy.peanut`. Two statements with the same
   * subject and attribute are about the same thing: the later one supersedes the earlier.
   */
  attribute: string;
  /** True when the attribute holds one value at a time (where one lives, one's name); false for lists (likes, pets). */
  single: boolean;
  /** `holds`: the statement is true from now on; `retracted`: what the attribute said stopped being true. */
  polarity: 'holds' | 'retracted';
  /** `against` for a dislike ("I hate sushi", "I'm not a fan of jazz"), `for` otherwise: the same attribute, the other way. */
  stance: 'for' | 'against';
  /** The value as said ("Berlin", "afternoon flights", "Rex"). */
  value: string;
  /** The memory's text, standing on its own: third person, relative times replaced by the dates they name. */
  statement: string;
  /** World time the statement starts to hold (ISO date), when the text says; otherwise null (from when it was said). */
  validFrom: string | null;
  /** World time it stops holding (ISO date, exclusive), when the text says ("until June"). */
  validTo: string | null;
  /** Where the clause starts in the text. */
  index: number;
  /** The clause as written. */
  source: string;
}

export interface Word {
  /** Lower-case, contractions opened ("i'm" → "i", "am"). */
  w: string;
  start: number;
  end: number;
}

/** One clause: its words (fillers before the subject dropped) and where it stands in the text. */
export interface Clause {
  words: Word[];
  /** True after "remember that", "note that", "keep in mind", "for the record". */
  explicit: boolean;
  /** True after "from now on" (the statement holds from when it was said). */
  fromNow: boolean;
  /** True when chat dropped the "I" before a life verb ("moved to leeds"): `words` opens with an "I" of no length. */
  dropped?: boolean;
  /** A short lead-in before the clause, cut off by a comma, colon or dash ("In March, we moved…"): its time counts. */
  lead?: Word[];
}

/** What a reading finds: nothing, one statement, or one per object of a list. */
export type Found = Statement | Statement[] | null;

export type Make = (
  kind: StatementKind,
  attribute: string[],
  single: boolean,
  value: string,
  opts?: { polarity?: Statement['polarity']; statement?: string; stance?: Statement['stance'] },
) => Statement;

/** `make` of a clause, with the start of the day the clause was said (epoch ms). */
export type Maker = Make & { saidDay: number };
