/**
 * Times said relative to the message's own time (issue 33 §2): each kind of phrase resolved against a fixed moment,
 * the relation words, phrases that only look like times, other moments (month and year ends, Sundays), and linear
 * time on inputs built to make a reader look back.
 */
import { describe, expect, it } from 'vitest';
import { type SaidTime, saidTimes } from '../src/domain/said-time.js';
import { growthOf } from './linear-time.js';

/** A Wednesday. */
const AT = '2024-05-15T10:00:00Z';

const one = (text: string, at = AT): Pick<SaidTime, 'start' | 'end' | 'relation' | 'unit'> & { phrase: string } => {
  const found = saidTimes(text, at);
  expect(found, `${text}: ${JSON.stringify(found)}`).toHaveLength(1);
  const { start, end, relation, unit, phrase } = found[0]!;
  return { start, end, relation, unit, phrase };
};
const day = (start: string, end: string, relation: SaidTime['relation'] = 'at', unit: SaidTime['unit'] = 'day') => ({
  start,
  end,
  relation,
  unit,
});

describe('saidTimes', () => {
  it('reads days said relative to today', () => {
    expect(one('I saw her yesterday')).toMatchObject(day('2024-05-14', '2024-05-15'));
    expect(one('We fly tomorrow morning')).toMatchObject(day('2024-05-16', '2024-05-17'));
    expect(one('It opens the day after tomorrow')).toMatchObject(day('2024-05-17', '2024-05-18'));
    expect(one('It closed the day before yesterday')).toMatchObject(day('2024-05-13', '2024-05-14'));
    expect(one('Dinner is tonight')).toMatchObject(day('2024-05-15', '2024-05-16'));
    expect(one('I slept badly last night')).toMatchObject(day('2024-05-14', '2024-05-15'));
  });

  it('reads counts of days, weeks, months and years back and ahead', () => {
    expect(one('I moved two weeks ago')).toMatchObject(day('2024-05-01', '2024-05-02'));
    expect(one('a couple of days ago it rained')).toMatchObject(day('2024-05-13', '2024-05-14'));
    expect(one('The exam is in three months')).toMatchObject(day('2024-08-15', '2024-08-16'));
    expect(one('5 years from now I retire')).toMatchObject(day('2029-05-15', '2029-05-16'));
    expect(one('I will decide within two weeks')).toMatchObject(day('2024-05-29', '2024-05-30', 'until'));
    expect(one('in a week')).toMatchObject(day('2024-05-22', '2024-05-23'));
    expect(one('We met a year ago')).toMatchObject(day('2023-05-15', '2023-05-16'));
    expect(one('I started 3 years ago')).toMatchObject(day('2021-05-15', '2021-05-16'));
    const vague = saidTimes('I quit a few days ago', AT)[0]!;
    expect(vague).toMatchObject({ start: '2024-05-12', approximate: true });
    expect(saidTimes('I quit two days ago', AT)[0]!.approximate).toBe(false);
  });

  it('reads weekdays: next, last, this, on, since', () => {
    expect(one('next Tuesday')).toMatchObject(day('2024-05-21', '2024-05-22'));
    expect(one('last Friday we met')).toMatchObject(day('2024-05-10', '2024-05-11'));
    expect(one('this Friday')).toMatchObject(day('2024-05-17', '2024-05-18'));
    expect(one('The party is on Friday')).toMatchObject(day('2024-05-17', '2024-05-18'));
    expect(one('The party is on Wednesday')).toMatchObject(day('2024-05-22', '2024-05-23'));
    expect(one("I've been sick since Monday")).toMatchObject(day('2024-05-13', '2024-05-14', 'since'));
    expect(one('since Wednesday')).toMatchObject(day('2024-05-15', '2024-05-16', 'since'));
  });

  it('reads weeks, weekends, months, seasons and years around today', () => {
    expect(one('this week')).toMatchObject(day('2024-05-13', '2024-05-20', 'at', 'week'));
    expect(one('next week')).toMatchObject(day('2024-05-20', '2024-05-27', 'at', 'week'));
    expect(one('this weekend')).toMatchObject(day('2024-05-18', '2024-05-20', 'at', 'weekend'));
    expect(one('last month')).toMatchObject(day('2024-04-01', '2024-05-01', 'at', 'month'));
    expect(one('next month')).toMatchObject(day('2024-06-01', '2024-07-01', 'at', 'month'));
    expect(one('I got married last year')).toMatchObject(day('2023-01-01', '2024-01-01', 'at', 'year'));
    expect(one('over the weekend')).toMatchObject(day('2024-05-18', '2024-05-20', 'at', 'weekend'));
    expect(one('last weekend')).toMatchObject(day('2024-05-11', '2024-05-13', 'at', 'weekend'));
    expect(one('last summer')).toMatchObject(day('2023-06-01', '2023-09-01', 'at', 'season'));
    expect(one('in the summer')).toMatchObject(day('2024-06-01', '2024-09-01', 'at', 'season'));
    expect(one('this winter')).toMatchObject(day('2024-12-01', '2025-03-01', 'at', 'season'));
    expect(one('next December')).toMatchObject(day('2024-12-01', '2025-01-01', 'at', 'month'));
    expect(one('last December')).toMatchObject(day('2023-12-01', '2024-01-01', 'at', 'month'));
  });

  it('reads months with the relation they are said with', () => {
    expect(one('I have lived here since March')).toMatchObject(day('2024-03-01', '2024-04-01', 'since', 'month'));
    expect(one('since June')).toMatchObject(day('2023-06-01', '2023-07-01', 'since', 'month'));
    expect(one('until June')).toMatchObject(day('2024-06-01', '2024-07-01', 'until', 'month'));
    expect(one('until April')).toMatchObject(day('2025-04-01', '2025-05-01', 'until', 'month'));
    expect(one('in January')).toMatchObject(day('2024-01-01', '2024-02-01', 'at', 'month'));
    expect(one('in May')).toMatchObject(day('2024-05-01', '2024-06-01', 'at', 'month'));
    expect(one('in March 2021')).toMatchObject(day('2021-03-01', '2021-04-01', 'at', 'month'));
  });

  it('reads dates written out, with or without a year', () => {
    expect(one('on 3 May 2023')).toMatchObject(day('2023-05-03', '2023-05-04'));
    expect(one('May 3rd, 2023 was a Wednesday')).toMatchObject(day('2023-05-03', '2023-05-04'));
    expect(one('on the 3rd of June')).toMatchObject(day('2024-06-03', '2024-06-04'));
    expect(one('the deadline is 2024-02-29')).toMatchObject(day('2024-02-29', '2024-03-01'));
    expect(one('on the 20th')).toMatchObject(day('2024-05-20', '2024-05-21'));
    expect(one('since the 2nd')).toMatchObject(day('2024-05-02', '2024-05-03', 'since'));
    expect(one('since 2019')).toMatchObject(day('2019-01-01', '2020-01-01', 'since', 'year'));
  });

  it('reads ends of periods and "from now on" as since and until', () => {
    expect(one('by the end of the month')).toMatchObject(day('2024-05-31', '2024-06-01', 'until', 'month'));
    expect(one('at the end of next week')).toMatchObject(day('2024-05-26', '2024-05-27', 'at', 'week'));
    expect(one('From now on, call me Sam')).toMatchObject({
      ...day('2024-05-15', '2024-05-16', 'since'),
      phrase: 'From now on',
    });
    expect(one('as of today I am vegan')).toMatchObject(day('2024-05-15', '2024-05-16', 'since'));
    expect(one('up to Friday')).toMatchObject(day('2024-05-17', '2024-05-18', 'until'));
  });

  it('reads starts, middles and thirds of periods: "at the start of the month", "early next month", "mid-March"', () => {
    expect(one('at the start of the month')).toMatchObject(day('2024-05-01', '2024-05-02', 'at', 'month'));
    expect(one('at the beginning of next year')).toMatchObject(day('2025-01-01', '2025-01-02', 'at', 'year'));
    expect(one('from the start of next month')).toMatchObject(day('2024-06-01', '2024-06-02', 'since', 'month'));
    expect(one('at the end of last year')).toMatchObject(day('2023-12-31', '2024-01-01', 'at', 'year'));
    expect(one('the end of June')).toMatchObject(day('2024-06-30', '2024-07-01', 'until', 'month'));
    expect(one('in the middle of July')).toMatchObject(day('2024-07-11', '2024-07-21', 'at', 'month'));
    expect(one('early next month')).toMatchObject(day('2024-06-01', '2024-06-11', 'at', 'month'));
    expect(one('we moved in mid-March')).toMatchObject(day('2024-03-11', '2024-03-21', 'at', 'month'));
    expect(one('mid March')).toMatchObject(day('2024-03-11', '2024-03-21', 'at', 'month'));
    expect(one('late June')).toMatchObject(day('2024-06-21', '2024-07-01', 'at', 'month'));
    expect(one('in early 2023')).toMatchObject({ start: '2023-01-01', unit: 'year' });
    expect(one('late next week')).toMatchObject(day('2024-05-24', '2024-05-27', 'at', 'week'));
    expect(saidTimes('early next month', AT)[0]!.approximate).toBe(true);
    // The words themselves, with no period after them, name none.
    for (const text of ['I woke up early', 'sorry I am late', 'the middle of the road', 'at the start of the race'])
      expect(saidTimes(text, AT), text).toEqual([]);
  });

  it('names no time where words only look like one', () => {
    for (const text of [
      'May I ask you something?',
      'Next time, bring the charger.',
      'I live in Maré',
      'Give me a second.',
      'We march on.',
      'I have 3 days off and a few ideas.',
      'The price fell, and so did the leaves.',
      'She came by bus from work.',
      'The first time was the last.',
      'It is over the top, within reason.',
      '',
    ]) {
      expect(saidTimes(text, AT), text).toEqual([]);
    }
  });

  it('finds several times in order, with their place in the text', () => {
    const text = 'I lived in Oslo until 2020, moved to Berlin last year and fly home next Friday.';
    const found = saidTimes(text, AT);
    expect(found.map((t) => [t.phrase, t.relation, t.start])).toEqual([
      ['until 2020', 'until', '2020-01-01'],
      ['last year', 'at', '2023-01-01'],
      ['next Friday', 'at', '2024-05-17'],
    ]);
    for (const t of found) expect(text.slice(t.index, t.index + t.phrase.length)).toBe(t.phrase);
  });

  it('resolves against the moment given, not the clock: month ends, year ends, Sundays', () => {
    expect(one('tomorrow', '2023-12-31T23:00:00Z')).toMatchObject(day('2024-01-01', '2024-01-02'));
    expect(one('next month', '2024-01-31T12:00:00Z')).toMatchObject(day('2024-02-01', '2024-03-01', 'at', 'month'));
    expect(one('a month ago', '2024-03-31T12:00:00Z')).toMatchObject(day('2024-03-02', '2024-03-03'));
    expect(one('in January', '2024-12-10T12:00:00Z')).toMatchObject(day('2025-01-01', '2025-02-01', 'at', 'month'));
    // A Sunday: its week began on Monday the 13th; "next Monday" is the 20th; the weekend is today's.
    expect(one('this week', '2024-05-19T09:00:00Z')).toMatchObject(day('2024-05-13', '2024-05-20', 'at', 'week'));
    expect(one('next Monday', '2024-05-19T09:00:00Z')).toMatchObject(day('2024-05-20', '2024-05-21'));
    expect(one('this weekend', '2024-05-19T09:00:00Z')).toMatchObject(day('2024-05-18', '2024-05-20', 'at', 'weekend'));
    expect(saidTimes('yesterday', 'not a time')).toEqual([]);
    expect(saidTimes('yesterday', new Date(Date.parse(AT)))).toHaveLength(1);
  });

  it('runs in linear time on inputs built to make it look back', () => {
    const pieces = [
      'the end of the ',
      'by the end of the end of ',
      'since the ',
      'a couple of a couple of ',
      'next next last this ',
      'on the 3rd of the 3rd of ',
      '12 12 12 ',
      'may may 2024 may ',
      'in a few in a few ',
      'from now on from ',
      'early mid- late the start of the middle of ',
      'mid-mid-mid-March ',
    ];
    for (const piece of pieces)
      expect(
        growthOf((text) => saidTimes(text, AT), piece, 6_000),
        piece,
      ).toBeLessThan(24);
  });
});
