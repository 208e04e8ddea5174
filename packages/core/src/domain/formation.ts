/**
 * What a fact distilled from a conversation does to the memories already formed (issue 33): add, update (supersede:
 * the old memory is closed and kept), invalidate (closed, nothing replaces it) or noop (already known: its evidence
 * grows). Only a memory about the same subject and attribute is ever superseded or closed, and nothing is deleted:
 * the decision says what to close, the store keeps it. Pure; the same inputs give the same decision.
 */

import { singular } from './statements/words.js';

/** A fact as formation compares it: a candidate from an extractor, or a current memory formed before. */
export interface FormationFact {
  /** Who it is about (`user`). */
  subject: string;
  /** What about them (`residence`, `preference.flight`, `like.sushi`): the unit of supersession. */
  attribute: string;
  /** True when the attribute holds one value at a time. */
  single: boolean;
  /** The value as said ("Berlin", "afternoon flights"). */
  value: string;
  /** The memory text. */
  statement: string;
  /** `against` for a dislike of the value (default `for`). */
  stance?: 'for' | 'against';
}

/** A candidate: a fact and whether it says the attribute holds or stopped holding. */
export interface FormationCandidate extends FormationFact {
  polarity: 'holds' | 'retracted';
}

/** A current memory formed before, with its id. */
export interface FormedMemory extends FormationFact {
  id: string;
}

/** What to do with a candidate. */
export type FormationDecision =
  | { decision: 'add' }
  | { decision: 'update'; supersedes: string }
  | { decision: 'invalidate'; closes: string }
  | { decision: 'noop'; known: string };

/** Values in a comparable form: lower case, words only, in the singular ("Afternoon flights!" → "afternoon flight"). */
export function normalValue(value: string): string {
  return value
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && w !== 'the' && w !== 'a' && w !== 'an' && w !== 'my' && w !== 'their')
    .map(singular)
    .join(' ');
}

/** The same value, or one that names it more fully ("Berlin" and "Berlin, Germany"). */
export function sameValue(a: string, b: string): boolean {
  const x = normalValue(a);
  const y = normalValue(b);
  if (x === y) return true;
  if (x.length === 0 || y.length === 0) return false;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return ` ${long} `.includes(` ${short} `);
}

/** Values that name no particular thing ("my job", "it"): a retraction of one closes whatever the attribute holds. */
const GENERIC = new Set(['', 'job', 'position', 'it', 'that', 'this', 'one', 'place']);

/**
 * The decision for `candidate` against the `current` memories of the same scope (the related ones a search found;
 * those about another subject or attribute are not touched). Of several current memories of the attribute, the
 * first is taken (give them newest first).
 *
 * - A candidate that holds: the same value the same way is known (noop, however it is worded); a single-valued
 *   attribute with another value, or the same value the other way ("loves sushi", then "does not like sushi"), is
 *   superseded (update); otherwise it is new (add). For a list (`single: false`) the attribute already names the item
 *   (`pet.dog.rex`): a memory with the same attribute and value is that item, now said the other way (update).
 * - A retraction: the memory it names is closed (invalidate): the one with the same value, or for a generic value
 *   ("I quit my job") the single-valued attribute's current one. With nothing to close, the retraction is itself
 *   worth keeping ("no longer eats meat"): add.
 */
export function decideFormation(candidate: FormationCandidate, current: readonly FormedMemory[]): FormationDecision {
  const same = current.filter((m) => m.subject === candidate.subject && m.attribute === candidate.attribute);
  if (candidate.polarity === 'retracted') {
    const named = same.find((m) => sameValue(m.value, candidate.value));
    const generic = GENERIC.has(normalValue(candidate.value)) && candidate.single ? same[0] : undefined;
    const target = named ?? generic;
    return target ? { decision: 'invalidate', closes: target.id } : { decision: 'add' };
  }
  const first = same[0];
  if (!first) return { decision: 'add' };
  const stance = candidate.stance ?? 'for';
  const known = same.find((m) => sameValue(m.value, candidate.value) && (m.stance ?? 'for') === stance);
  if (known) return { decision: 'noop', known: known.id };
  if (candidate.single) return { decision: 'update', supersedes: first.id };
  // A list item: the attribute names the item itself.
  return sameValue(first.value, candidate.value) ? { decision: 'update', supersedes: first.id } : { decision: 'add' };
}
