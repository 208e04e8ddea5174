/**
 * What a distilled fact does to the memories formed before (issue 33 §1): each decision from statements the offline
 * reader makes of real phrasings, only the same subject and attribute ever superseded or closed, and never a deletion.
 */
import { describe, expect, it } from 'vitest';
import { decideFormation, type FormedMemory, normalValue, sameValue } from '../src/domain/formation.js';
import { firstPersonStatements } from '../src/domain/statements/index.js';

const AT = '2024-05-15T10:00:00Z';

/** The one statement a text says. */
const said = (text: string) => {
  const found = firstPersonStatements(text, AT);
  expect(found, text).toHaveLength(1);
  return found[0]!;
};

/** Memories formed from texts, in order, each statement a plain add (ids m1, m2, …). */
const formed = (...texts: string[]): FormedMemory[] =>
  texts.flatMap((t) => firstPersonStatements(t, AT)).map((s, i) => ({ ...s, id: `m${i + 1}` }));

describe('decideFormation', () => {
  it('supersedes a changed preference, and only the memory of that attribute', () => {
    const current = formed('I prefer morning flights.', 'I live in Berlin.', 'I love sushi');
    expect(decideFormation(said('Actually, afternoon flights suit me better now.'), current)).toEqual({
      decision: 'update',
      supersedes: 'm1',
    });
    expect(decideFormation(said("I've moved to Lisbon"), current)).toEqual({ decision: 'update', supersedes: 'm2' });
    expect(decideFormation(said('I prefer aisle seats'), current)).toEqual({ decision: 'add' });
  });

  it('knows what it already knows, however it is worded (noop: the evidence grows)', () => {
    const current = formed('I prefer morning flights.', 'I love sushi', 'I live in Berlin, Germany');
    expect(decideFormation(said('I really prefer morning flights'), current)).toEqual({
      decision: 'noop',
      known: 'm1',
    });
    expect(decideFormation(said('I totally love sushi'), current)).toEqual({ decision: 'noop', known: 'm2' });
    expect(decideFormation(said("I'm based in Berlin"), current)).toEqual({ decision: 'noop', known: 'm3' });
  });

  it('turns a like into a dislike of the same thing (update), not a second memory', () => {
    const current = formed('I love sushi');
    expect(decideFormation(said("I don't like sushi"), current)).toEqual({ decision: 'update', supersedes: 'm1' });
    expect(decideFormation(said('I hate sushi'), formed("I can't stand sushi"))).toEqual({
      decision: 'noop',
      known: 'm1',
    });
  });

  it('closes what a retraction names, and keeps a retraction with nothing to close', () => {
    const current = formed(
      'I live in Berlin.',
      "I'm allergic to peanuts and shellfish",
      'I work at Acme',
      'I am vegetarian',
    );
    expect(decideFormation(said("I don't live in Berlin anymore."), current)).toEqual({
      decision: 'invalidate',
      closes: 'm1',
    });
    const nuts = firstPersonStatements("I'm not allergic to peanuts anymore", AT)[0]!;
    expect(decideFormation(nuts, current)).toEqual({ decision: 'invalidate', closes: 'm2' });
    expect(decideFormation(said('I quit my job last week.'), current)).toEqual({
      decision: 'invalidate',
      closes: 'm4',
    });
    expect(decideFormation(said("I'm no longer vegetarian"), current)).toEqual({
      decision: 'invalidate',
      closes: 'm5',
    });
    // Not living in Paris closes nothing here: Berlin stays.
    expect(decideFormation(said("I don't live in Paris anymore"), current)).toEqual({ decision: 'add' });
    expect(decideFormation(said('I no longer eat meat.'), current)).toEqual({ decision: 'add' });
  });

  it('keeps items of a list apart: another pet or allergy is added, the same one is known', () => {
    const current = formed('I have a dog named Rex.', "I'm allergic to peanuts");
    expect(decideFormation(said('I have a cat named Luna'), current)).toEqual({ decision: 'add' });
    expect(decideFormation(said('We have a dog called Rex'), current)).toEqual({ decision: 'noop', known: 'm1' });
    expect(decideFormation(said("I'm allergic to cats"), current)).toEqual({ decision: 'add' });
  });

  it('never touches another subject', () => {
    const other: FormedMemory = { ...said('I live in Berlin.'), id: 'x1', subject: 'user:anna' };
    expect(decideFormation(said("I've moved to Lisbon"), [other])).toEqual({ decision: 'add' });
    expect(decideFormation(said("I don't live in Berlin anymore."), [other])).toEqual({ decision: 'add' });
  });
});

describe('sameValue', () => {
  it('compares values by their words', () => {
    expect(normalValue('Afternoon flights!')).toBe('afternoon flight');
    expect(sameValue('Berlin', 'Berlin, Germany')).toBe(true);
    expect(sameValue('the morning flights', 'Morning flight')).toBe(true);
    expect(sameValue('morning flights', 'afternoon flights')).toBe(false);
    expect(sameValue('Berlin', 'Berlingo')).toBe(false);
    expect(sameValue('', 'Berlin')).toBe(false);
  });
});
