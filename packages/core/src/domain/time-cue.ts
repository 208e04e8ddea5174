/**
 * Time named in a query (docs/ranking.md): "in June", "in July 2023", "on October 13, 2023", "on 1 February, 2023",
 * "in 2022". Memories said in that period, or within a few weeks after it (people tell of things after they happen),
 * rank higher. Pure functions; times in UTC.
 */

/** English month names, January first, lower case. */
export const MONTH_NAMES: readonly string[] = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A period a query names: a year, a month (0–11, of any year when no year is named) or a day. */
export interface TimeCue {
  year?: number;
  month?: number;
  day?: number;
}

const DATE = new RegExp(
  `\\b(?:(\\d{1,2})(?:st|nd|rd|th)?\\s+)?(${MONTH_NAMES.join('|')})(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?)?(?:,?\\s+(\\d{4}))?\\b`,
);
const YEAR = /\b(19\d\d|20\d\d)\b/;

/**
 * The first period the query names, or null. "May" is only read as a month next to a day or a year, or after "in" /
 * "of" / "since" / "during" / "until" ("you may", "May I" name no time).
 */
export function timeCue(query: string): TimeCue | null {
  const text = query.toLowerCase();
  const m = DATE.exec(text);
  if (m) {
    const month = MONTH_NAMES.indexOf(m[2]!);
    const day = m[1] ?? m[3];
    const year = m[4];
    const before = text.slice(0, m.index).trimEnd();
    const ambiguous = month === 4 && !day && !year && !/\b(in|of|since|during|until|from|by)$/.test(before);
    if (!ambiguous) {
      const cue: TimeCue = { month };
      if (day && Number(day) >= 1 && Number(day) <= 31) cue.day = Number(day);
      if (year) cue.year = Number(year);
      return cue;
    }
  }
  const y = YEAR.exec(text);
  return y ? { year: Number(y[1]) } : null;
}

export interface TimeCueOptions {
  /** Memories in the named period get relevance × (1 + weight), the others × 1, both ÷ (1 + weight); 0 = off. */
  weight: number;
  /** Days after the period in which a memory still counts as in it (told afterwards). */
  afterDays: number;
}

/** Fitted by cross-validation over LoCoMo's conversations with the session context (apps/bench README). */
export const DEFAULT_TIME_CUE: TimeCueOptions = { weight: 1, afterDays: 35 };

const DAY_MS = 86_400_000;

/**
 * Whether a memory said at `at` (epoch ms) falls in the cue's period or up to `afterDays` after its end. A cue without
 * a year matches the period in the memory's own year or the year before (December for a memory of early January).
 */
export function nearTimeCue(cue: TimeCue, at: number, afterDays: number): boolean {
  if (!Number.isFinite(at)) return false;
  const own = new Date(at).getUTCFullYear();
  for (const year of cue.year !== undefined ? [cue.year] : [own, own - 1]) {
    let start: number;
    let end: number;
    if (cue.month === undefined) {
      start = Date.UTC(year, 0, 1);
      end = Date.UTC(year + 1, 0, 1);
    } else if (cue.day === undefined) {
      start = Date.UTC(year, cue.month, 1);
      end = Date.UTC(year, cue.month + 1, 1);
    } else {
      start = Date.UTC(year, cue.month, cue.day);
      end = start + DAY_MS;
    }
    if (at >= start && at < end + afterDays * DAY_MS) return true;
  }
  return false;
}
