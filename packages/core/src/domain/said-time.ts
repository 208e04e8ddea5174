/**
 * Times said relative to when they were said: "yesterday", "next Tuesday", "two weeks ago", "last year", "since
 * March", "until the end of the month", "on 3 May 2024". A fact formed from a conversation takes its world time from
 * them, resolved against the message's own time, never against the time the memory is formed. Pure; UTC; one pass
 * over the words of the text (each reading looks a few words ahead), so it runs in linear time on any input.
 */

import { own } from './json.js';
import { MONTH_NAMES } from './time-cue.js';

/** How `saidTimes` reads a text. */
export interface SaidTimeOptions {
  /**
   * The text speaks of what lies ahead ("I'm going to Japan in April"): a month or date without a year is the next
   * one not yet over, not the nearest (which may be past).
   */
  ahead?: boolean;
}

/** The length of the period a phrase names. */
export type SaidTimeUnit = 'day' | 'week' | 'weekend' | 'month' | 'season' | 'year';

/** One time a text names, resolved to a period of days. */
export interface SaidTime {
  /** The words that named it, as written (the relation word included). */
  phrase: string;
  /** Where the phrase starts in the text (UTF-16 offset). */
  index: number;
  /** The first day of the period, ISO date (UTC). */
  start: string;
  /** The day after its last day, ISO date: the period is [start, end). */
  end: string;
  /**
   * How the sentence stands to the period: `at` (during it: "on Friday", "last year"), `since` (from its start on:
   * "since March", "from now on", "as of Monday"), `until` (up to its end: "until June", "by Friday").
   */
  relation: 'at' | 'since' | 'until';
  unit: SaidTimeUnit;
  /** True when the count was vague ("a few weeks ago", "several days ago": read as 3). */
  approximate: boolean;
}

const DAY = 86_400_000;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MONTH_SHORT: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  sept: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};
const SEASONS: Record<string, number> = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 };
const COUNTS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  few: 3,
  several: 3,
};
const VAGUE = new Set(['few', 'several']);
const UNITS: Record<string, 'day' | 'week' | 'month' | 'year'> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
};
const RELATIONS: Record<string, SaidTime['relation']> = {
  since: 'since',
  from: 'since',
  starting: 'since',
  until: 'until',
  till: 'until',
  til: 'until',
  by: 'until',
  through: 'until',
  before: 'until',
  within: 'until',
  in: 'at',
  on: 'at',
  at: 'at',
  during: 'at',
  over: 'at',
};
/** Words for a part of a period: "the start of next month", "the end of the year". */
const PARTS = new Set(['start', 'beginning', 'middle', 'end']);
const THIRDS: Record<string, number> = { early: 0, mid: 1, late: 2 };

/** The `n`-th third (0, 1, 2) of a period: early June is the 1st to the 10th, mid-June the 11th to the 20th. */
function third(p: Period, n: number): Period {
  const size = Math.floor((p.to - p.from) / 3);
  const from = p.from + n * size;
  return { from, to: n === 2 ? p.to : from + size, unit: p.unit };
}

/** Words that name a part of a day: "this morning" is today, "tomorrow night" tomorrow. */
const DAY_PARTS = new Set(['morning', 'afternoon', 'evening', 'night', 'tonight']);

interface Token {
  word: string;
  start: number;
  end: number;
}

/** A period in epoch days [from, to) and its unit. */
interface Period {
  from: number;
  to: number;
  unit: SaidTimeUnit;
  approximate?: boolean;
}

/** A date, a number (with its ordinal ending), a word in letters of any script, or one other mark. */
const TOKEN = /\d{4}-\d{2}-\d{2}|\d+(?:st|nd|rd|th)?|[\p{L}\p{M}]+|[^\s\p{L}\p{M}\d]/giu;

function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN))
    out.push({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  return out;
}

const dayOf = (ms: number) => Math.floor(ms / DAY);
const ymd = (day: number) => new Date(day * DAY);
const utcDay = (y: number, m: number, d: number) => dayOf(Date.UTC(y, m, d));
const iso = (day: number) => ymd(day).toISOString().slice(0, 10);
/** Monday of the week of `day` (ISO weeks). */
const monday = (day: number) => day - ((ymd(day).getUTCDay() + 6) % 7);

function monthPeriod(y: number, m: number): Period {
  return { from: utcDay(y, m, 1), to: utcDay(y, m + 1, 1), unit: 'month' };
}
function yearPeriod(y: number): Period {
  return { from: utcDay(y, 0, 1), to: utcDay(y + 1, 0, 1), unit: 'year' };
}
function seasonPeriod(y: number, firstMonth: number): Period {
  return { from: utcDay(y, firstMonth, 1), to: utcDay(y, firstMonth + 3, 1), unit: 'season' };
}
function dayPeriod(day: number): Period {
  return { from: day, to: day + 1, unit: 'day' };
}

/** The period `n` units from `today` (negative: back), a day for days and weeks, the month or year for the others. */
function shifted(today: number, n: number, unit: 'day' | 'week' | 'month' | 'year', approximate: boolean): Period {
  const d = ymd(today);
  const [y, m, dd] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  if (unit === 'day') return { ...dayPeriod(today + n), approximate };
  if (unit === 'week') return { ...dayPeriod(today + 7 * n), approximate };
  if (unit === 'month') return { ...dayPeriod(utcDay(y, m + n, dd)), approximate };
  return { ...dayPeriod(utcDay(y + n, m, dd)), approximate };
}

function monthOf(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  const full = MONTH_NAMES.indexOf(word);
  return full >= 0 ? full : own(MONTH_SHORT, word);
}

const ordinal = (word: string | undefined): number | undefined => {
  const m = word === undefined ? null : /^(\d{1,2})(?:st|nd|rd|th)?$/.exec(word);
  const n = m ? Number(m[1]) : Number.NaN;
  return n >= 1 && n <= 31 ? n : undefined;
};
const yearOf = (word: string | undefined): number | undefined =>
  word !== undefined && /^(19|20)\d\d$/.test(word) ? Number(word) : undefined;

/**
 * What the words from `i` on name, read against `today` (epoch day) and the relation said before them, with how
 * many words it took; null when they name no time.
 */
function readTime(
  w: (k: number) => string | undefined,
  i: number,
  today: number,
  relation: SaidTime['relation'] | null,
  nested = false,
  ahead = false,
): { period: Period; used: number } | null {
  const word = w(i);
  /** How a month or day without a year is placed: the relation's way, or the next one to come for a future sentence. */
  const lean: Lean = ahead && relation !== 'since' && relation !== 'until' ? 'ahead' : relation;
  if (word === undefined) return null;
  const now = ymd(today);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = (period: Period, used: number) => ({ period, used });

  if (word === 'today' || word === 'tonight' || (word === 'now' && relation !== null)) return day(dayPeriod(today), 1);
  if (word === 'yesterday') return day(dayPeriod(today - 1), 1);
  if (word === 'tomorrow') return day(dayPeriod(today + 1), 1);
  if (word === 'the' && w(i + 1) === 'day' && (w(i + 2) === 'after' || w(i + 2) === 'before')) {
    const other = w(i + 3);
    if (w(i + 2) === 'after' && other === 'tomorrow') return day(dayPeriod(today + 2), 4);
    if (w(i + 2) === 'before' && other === 'yesterday') return day(dayPeriod(today - 2), 4);
  }
  // "the end of the month / next week / this year": the period's last day (an `until` reading); "the start (the
  // beginning) of next month": its first day; "the middle of June": its middle third.
  const part = word === 'the' ? w(i + 1) : word;
  if (!nested && part !== undefined && PARTS.has(part) && w(i + (word === 'the' ? 2 : 1)) === 'of') {
    const skip = word === 'the' ? 3 : 2;
    const after = w(i + skip) === 'the' ? skip + 1 : skip;
    const inner = readTime(w, i + after, today, relation ?? 'at', true, ahead) ?? readUnitAlone(w(i + after), today);
    if (inner) {
      const { from, to, unit } = inner.period;
      const at = part === 'end' ? dayPeriod(to - 1) : part === 'middle' ? third(inner.period, 1) : dayPeriod(from);
      return day({ ...at, unit, approximate: part === 'middle' }, after + inner.used);
    }
  }
  // "early next month", "mid-March", "late 2023", "in early summer": a third of the period.
  if (!nested && (word === 'early' || word === 'mid' || word === 'late')) {
    const skip = w(i + 1) === '-' ? 2 : 1;
    const inner = readTime(w, i + skip, today, relation ?? 'at', true, ahead);
    if (inner) {
      const whole = inner.period;
      const cut = whole.unit === 'day' || whole.unit === 'weekend' ? whole : third(whole, THIRDS[word]!);
      return day({ ...cut, unit: whole.unit, approximate: true }, skip + inner.used);
    }
  }
  // "in the summer", "on the weekend", "on the 3rd of May", "on the 5th" (the nearest such day of a month).
  if (!nested && word === 'the' && relation !== null && w(i + 1) !== 'the' && !PARTS.has(w(i + 1) ?? '')) {
    const next = w(i + 1);
    if (next === 'weekend') {
      const saturday = monday(today) + 5;
      const from = relation === 'since' || today < saturday + 2 ? saturday : saturday + 7;
      return day({ from, to: from + 2, unit: 'weekend' }, 2);
    }
    const dd = ordinal(next);
    if (
      dd !== undefined &&
      monthOf(w(i + 2) === 'of' ? w(i + 3) : w(i + 2)) === undefined &&
      next !== undefined &&
      !/^\d+$/.test(next)
    ) {
      return day(dayPeriod(dayOfMonthNear(today, dd, relation)), 2);
    }
    const inner =
      next !== undefined && (own(SEASONS, next) !== undefined || dd !== undefined)
        ? readTime(w, i + 1, today, relation, true, ahead)
        : null;
    if (inner) return day(inner.period, inner.used + 1);
  }
  // ISO date.
  const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/.exec(word);
  if (isoDate) {
    const [y, m, d] = [Number(isoDate[1]), Number(isoDate[2]) - 1, Number(isoDate[3])];
    if (m <= 11 && d >= 1 && d <= 31) return day(dayPeriod(utcDay(y, m, d)), 1);
  }
  // "this / next / last" + week, month, year, weekend, a weekday, a month, a season.
  if (word === 'this' || word === 'next' || word === 'last' || word === 'coming' || word === 'past') {
    const step = word === 'next' || word === 'coming' ? 1 : word === 'this' ? 0 : -1;
    const what = w(i + 1);
    if (what === undefined) return null;
    if (what === 'week')
      return day({ from: monday(today) + 7 * step, to: monday(today) + 7 * step + 7, unit: 'week' }, 2);
    if (what === 'weekend') {
      const saturday = monday(today) + 5 + 7 * step;
      return day({ from: saturday, to: saturday + 2, unit: 'weekend' }, 2);
    }
    if (what === 'month') return day(monthPeriod(year, month + step), 2);
    if (what === 'year') return day(yearPeriod(year + step), 2);
    if (DAY_PARTS.has(what) && step >= 0) return day(dayPeriod(today + step), 2);
    if (what === 'night' && step < 0) return day(dayPeriod(today - 1), 2);
    const wd = WEEKDAYS.indexOf(what);
    if (wd >= 0) {
      const offset = (wd - ((now.getUTCDay() + 6) % 7) + 7) % 7;
      if (step === 0) return day(dayPeriod(today + offset), 2);
      if (step === 1) return day(dayPeriod(today + (offset === 0 ? 7 : offset)), 2);
      return day(dayPeriod(today - ((7 - offset) % 7 || 7)), 2);
    }
    const mo = monthOf(what);
    if (mo !== undefined) {
      if (step === 0) return day(monthPeriod(year, mo), 2);
      if (step === 1) return day(monthPeriod(mo > month ? year : year + 1, mo), 2);
      return day(monthPeriod(mo < month ? year : year - 1, mo), 2);
    }
    const season = own(SEASONS, what);
    if (season !== undefined) {
      // The season now running, or the next / last one of that name.
      const current = season === 11 ? (month === 11 ? year : year - 1) : year;
      const running = seasonPeriod(current, season);
      const inIt = today >= running.from && today < running.to;
      if (step === 0) return day(inIt || today < running.from ? running : seasonPeriod(current + 1, season), 2);
      if (step === 1) return day(today < running.from ? running : seasonPeriod(current + 1, season), 2);
      return day(today >= running.to ? running : seasonPeriod(current - 1, season), 2);
    }
    return null;
  }
  // "two weeks ago", "a couple of days ago", "in three months", "5 years from now".
  const count = readCount(w, i);
  if (count) {
    const unit = own(UNITS, w(i + count.used) ?? '');
    if (unit) {
      const after = w(i + count.used + 1);
      if (after === 'ago') return day(shifted(today, -count.n, unit, count.vague), count.used + 2);
      if (after === 'from' && w(i + count.used + 2) === 'now')
        return day(shifted(today, count.n, unit, count.vague), count.used + 3);
      if (relation === 'at' || relation === 'until' || after === 'later' || after === 'time') {
        return day(
          shifted(today, count.n, unit, count.vague),
          count.used + (after === 'later' || after === 'time' ? 2 : 1),
        );
      }
    }
  }
  // A weekday: "on Friday" is the next one (today excluded); "Friday" alone only after a relation word.
  const wd = WEEKDAYS.indexOf(word);
  if (wd >= 0 && relation !== null) {
    const offset = (wd - ((now.getUTCDay() + 6) % 7) + 7) % 7;
    // "since Monday" said on a Monday is today; "on Monday" said on a Monday is next week's.
    if (relation === 'since') return day(dayPeriod(today - ((7 - offset) % 7)), 1);
    return day(dayPeriod(today + (offset === 0 ? 7 : offset)), 1);
  }
  // A date: "3 May 2024", "May 3rd, 2024", "May 3", "3rd of May".
  const dd = ordinal(word);
  if (dd !== undefined) {
    const of = w(i + 1) === 'of' ? 1 : 0;
    const mo = monthOf(w(i + 1 + of));
    if (mo !== undefined) {
      const comma = w(i + 2 + of) === ',' ? 1 : 0;
      const y = yearOf(w(i + 2 + of + comma));
      const used = 2 + of + (y === undefined ? 0 : 1 + comma);
      return day(dayPeriod(utcDay(y ?? nearestYear(today, mo, dd, lean), mo, dd)), used);
    }
  }
  const mo = monthOf(word);
  if (mo !== undefined) {
    // A month alone names a time only after a relation word ("May I…", "we march"); with a day or a year always.
    const d2 = ordinal(w(i + 1));
    const comma = w(i + 1 + (d2 === undefined ? 0 : 1)) === ',' ? 1 : 0;
    const y = yearOf(w(i + 1 + (d2 === undefined ? 0 : 1) + comma));
    if (d2 !== undefined) {
      const used = 2 + (y === undefined ? 0 : 1 + comma);
      return day(dayPeriod(utcDay(y ?? nearestYear(today, mo, d2, lean), mo, d2)), used);
    }
    if (relation === null && y === undefined) return null;
    if (y !== undefined) return day(monthPeriod(y, mo), 2 + comma);
    return day(monthPeriod(nearestYear(today, mo, 1, lean, true), mo), 1);
  }
  const season = own(SEASONS, word);
  if (season !== undefined && relation !== null) {
    const y = yearOf(w(i + 1));
    if (y !== undefined) return day(seasonPeriod(y, season), 2);
    const current = season === 11 ? (month === 11 ? year : year - 1) : year;
    const running = seasonPeriod(current, season);
    if (relation === 'since') return day(today >= running.from ? running : seasonPeriod(current - 1, season), 1);
    return day(today < running.to ? running : seasonPeriod(current + 1, season), 1);
  }
  const y = yearOf(word);
  if (y !== undefined && relation !== null) return day(yearPeriod(y), 1);
  return null;
}

/** The day `dd` of this month or a neighbouring one: the last one begun for `since`, else the next one to come. */
function dayOfMonthNear(today: number, dd: number, relation: SaidTime['relation']): number {
  const now = ymd(today);
  const [y, m] = [now.getUTCFullYear(), now.getUTCMonth()];
  const here = utcDay(y, m, dd);
  if (relation === 'since') return here <= today ? here : utcDay(y, m - 1, dd);
  return here >= today ? here : utcDay(y, m + 1, dd);
}

/** "month", "week", "year" alone (after "the end of the"): the one now running. */
function readUnitAlone(word: string | undefined, today: number): { period: Period; used: number } | null {
  const now = ymd(today);
  if (word === 'week') return { period: { from: monday(today), to: monday(today) + 7, unit: 'week' }, used: 1 };
  if (word === 'month') return { period: monthPeriod(now.getUTCFullYear(), now.getUTCMonth()), used: 1 };
  if (word === 'year') return { period: yearPeriod(now.getUTCFullYear()), used: 1 };
  if (word === 'day') return { period: dayPeriod(today), used: 1 };
  return null;
}

/** A count: a number word or digits, "a couple of", "a few". */
function readCount(
  w: (k: number) => string | undefined,
  i: number,
): { n: number; used: number; vague: boolean } | null {
  const word = w(i);
  if (word === undefined) return null;
  if (/^\d{1,3}$/.test(word)) return { n: Number(word), used: 1, vague: false };
  if (
    (word === 'a' || word === 'an') &&
    w(i + 1) !== undefined &&
    own(COUNTS, w(i + 1)!) !== undefined &&
    w(i + 1) !== 'a'
  ) {
    const next = w(i + 1)!;
    const of = w(i + 2) === 'of' ? 1 : 0;
    if (next === 'couple' || next === 'few') return { n: own(COUNTS, next)!, used: 2 + of, vague: VAGUE.has(next) };
  }
  const n = own(COUNTS, word);
  if (n === undefined || word === 'couple') return null;
  return { n, used: 1, vague: VAGUE.has(word) };
}

/**
 * The year of a month (and day) said without one: for `since` the last time it began, for `until` the next time it
 * ends, otherwise the nearest one to `today` (a month said in December of "January" is next month).
 */
/** How a date without a year is placed: by its relation, or `ahead` (the next one not yet over). */
type Lean = SaidTime['relation'] | null | 'ahead';

function nearestYear(today: number, mo: number, d: number, relation: Lean, wholeMonth = false): number {
  const year = ymd(today).getUTCFullYear();
  const at = (y: number) => utcDay(y, mo, d);
  const endOf = (y: number) => (wholeMonth ? utcDay(y, mo + 1, 1) : at(y) + 1);
  if (relation === 'since') return at(year) <= today ? year : year - 1;
  if (relation === 'until' || relation === 'ahead') return endOf(year) > today ? year : year + 1;
  const candidates = [year - 1, year, year + 1];
  let best = year;
  for (const y of candidates) {
    const distance = today < at(y) ? at(y) - today : today >= endOf(y) ? today - endOf(y) + 1 : 0;
    const bestDistance = today < at(best) ? at(best) - today : today >= endOf(best) ? today - endOf(best) + 1 : 0;
    if (distance < bestDistance) best = y;
  }
  return best;
}

/**
 * Every time `text` names, in order, resolved against `at` (the time the text was said). Relation words before a
 * time ("since", "from", "as of", "until", "by", "in", "on") say how the sentence stands to it; "from now on" is
 * `since` today. Words that only look like times ("may I", "a second", "next time") name none.
 */
export function saidTimes(text: string, at: Date | string, how: SaidTimeOptions = {}): SaidTime[] {
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (!Number.isFinite(ms)) return [];
  const today = dayOf(ms);
  const words = tokens(text);
  const w = (k: number) => words[k]?.word;
  const out: SaidTime[] = [];
  let i = 0;
  while (i < words.length) {
    let relation: SaidTime['relation'] | null = null;
    let lead = 0;
    if (w(i) === 'as' && w(i + 1) === 'of') {
      relation = 'since';
      lead = 2;
    } else if (w(i) === 'up' && (w(i + 1) === 'to' || w(i + 1) === 'until')) {
      relation = 'until';
      lead = 2;
    } else if (own(RELATIONS, w(i)!) !== undefined) {
      relation = own(RELATIONS, w(i)!)!;
      lead = 1;
    }
    const found = readTime(w, i + lead, today, relation, false, how.ahead ?? false);
    if (found === null) {
      i += 1;
      continue;
    }
    // "from now on", "from today on": since; a bare reading keeps `at`.
    let used = lead + found.used;
    if (w(i + used) === 'on' && (relation === 'since' || w(i + used - 1) === 'now')) used += 1;
    const first = words[i]!;
    const last = words[i + used - 1]!;
    const isEnd =
      (w(i + lead) === 'the' && w(i + lead + 1) === 'end') || (w(i + lead) === 'end' && w(i + lead + 1) === 'of');
    out.push({
      phrase: text.slice(first.start, last.end),
      index: first.start,
      start: iso(found.period.from),
      end: iso(found.period.to),
      relation: relation ?? (isEnd ? 'until' : 'at'),
      unit: found.period.unit,
      approximate: found.period.approximate ?? false,
    });
    i += used;
  }
  return out;
}
