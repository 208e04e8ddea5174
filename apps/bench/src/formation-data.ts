/**
 * The shape of the formation bench's dialogues (src/formation-dialogues.ts) and the helpers they are written with.
 *
 * Every pattern in a dialogue is the source of a regular expression, matched case-insensitively against a memory's
 * text: a plain word matches itself anywhere, `a|b` either. They name values ("aisle", "leeds"), never an
 * extractor's wording, so that any extractor's memory of the fact can match.
 */
import { MONTH_NAMES } from '@mem/core/adapter';

/** Who said a turn. `paste` is content the user pasted from outside (a web page, an e-mail): sent as untrusted. */
export type Speaker = 'user' | 'assistant' | 'tool' | 'paste';

export interface Turn {
  by: Speaker;
  text: string;
}

/** One conversation on one day: its turns are said a minute apart from `at`. */
export interface Session {
  /** ISO time the session starts (UTC). */
  at: string;
  turns: Turn[];
}

/** What kind of knowledge a probe checks (scores are also given per kind). */
export type ProbeKind =
  /** A value that changed: the new one must be current, the old one closed. */
  | 'change'
  /** A fact with a relative date ("next Tuesday", "since March"): the date it names must be in the memory. */
  | 'date'
  /** A fact the user took back: it must have been formed, and be closed now. */
  | 'retraction'
  /** A fact said several times in different words: exactly one current memory. */
  | 'duplicate'
  /** A plain fact (often the one real fact in a dialogue full of noise). */
  | 'fact';

/**
 * A question about the end state. `expect`: patterns that must all match one current distilled memory retrieved for
 * `query`. `stale`: earlier values that must not be current any more. A probe without `expect` (a retraction) is
 * right when a memory holding a `stale` value was formed and none is current.
 */
export interface Probe {
  kind: ProbeKind;
  query: string;
  expect?: string[];
  stale?: string[];
}

/**
 * A question about an earlier time: as of `asOf` (an ISO date), a memory retrieved for `query` must match every
 * `expect` pattern, and none may hold a `not` value. Without `expect`: nothing may hold a `not` value then (and a
 * memory holding it must have been formed at some point, else the probe is not passed).
 */
export interface AsOfProbe {
  query: string;
  asOf: string;
  expect?: string[];
  not?: string[];
}

/** Where a memory must not come from. */
export type NoiseClass = 'smalltalk' | 'tool' | 'hypothetical' | 'third-person' | 'assistant';

/** A pattern no distilled memory of the dialogue may match (`.`: no memory at all). */
export interface Forbidden {
  class: NoiseClass;
  pattern: string;
}

/** The categories a dialogue exercises (for the record; the scores are per probe kind and noise class). */
export type Category =
  | 'change'
  | 'relative-date'
  | 'retraction'
  | 'duplicate'
  | 'smalltalk'
  | 'secret'
  | 'tool'
  | 'third-person'
  | 'hypothetical'
  | 'multi-fact';

/** The two halves of the set, written in different styles (the bench reports each, to see a style-fitted figure). */
export type Style = 'chat' | 'prose';

export interface Dialogue {
  id: string;
  style: Style;
  covers: Category[];
  sessions: Session[];
  probes: Probe[];
  asOf?: AsOfProbe[];
  forbidden?: Forbidden[];
  /** Credentials said in the dialogue: no memory may ever hold one (whole, or its last 8 characters). */
  secrets?: string[];
}

export const u = (text: string): Turn => ({ by: 'user', text });
export const a = (text: string): Turn => ({ by: 'assistant', text });
export const tool = (text: string): Turn => ({ by: 'tool', text });
export const paste = (text: string): Turn => ({ by: 'paste', text });

/** A day written the ways a memory may write it: `2026-03-10`, `March 10`, `10 March`, `10th of March`, `Mar 10`. */
export function day(iso: string): string {
  const [, m, d] = iso.split('-').map(Number) as [number, number, number];
  const name = MONTH_NAMES[m - 1]!;
  const short = name.slice(0, 3);
  return [
    iso,
    `${name} ${d}\\b`,
    `${d}(st|nd|rd|th)? (of )?${name}`,
    `${short}\\.? ${d}\\b`,
    `${name} ${d}(st|nd|rd|th)`,
  ].join('|');
}

/** A month written as `2026-03` or `March 2026`. */
export function month(iso: string): string {
  const [y, m] = iso.split('-').map(Number) as [number, number];
  return `${iso}|${MONTH_NAMES[m - 1]!},? ${y}`;
}

/** A pattern that any memory matches: the dialogue should form none. */
export const ANY = '.';
