/**
 * The offline reading of first-person statements (issue 33 §3b): each class of statement said several ways, the
 * attribute that makes a later statement supersede an earlier one, retractions, times resolved against the message's
 * own time, what must give nothing (small talk, questions, wishes, advice, pronouns), and linear time.
 */
import { describe, expect, it } from 'vitest';
import { firstPersonStatements, type Statement } from '../src/domain/statements/index.js';
import { growthOf } from './linear-time.js';

/** A Wednesday. */
const AT = '2024-05-15T10:00:00Z';

const read = (text: string, at = AT) => firstPersonStatements(text, at);
const only = (text: string, at = AT): Statement => {
  const found = read(text, at);
  expect(found, `${text}: ${JSON.stringify(found.map((s) => s.attribute))}`).toHaveLength(1);
  return found[0]!;
};
/** The attribute each phrasing reads, one statement each. */
const attributes = (texts: string[]) => texts.map((t) => only(t).attribute);

describe('firstPersonStatements', () => {
  it('reads the flight example: a preference, then a change of mind about the same thing', () => {
    const before = only('I prefer morning flights.');
    const after = only('Actually, afternoon flights suit me better now.');
    expect(before).toMatchObject({
      kind: 'preference',
      attribute: 'preference.flight',
      single: true,
      polarity: 'holds',
    });
    expect(after).toMatchObject({ kind: 'preference', attribute: before.attribute, value: 'afternoon flights' });
    expect(before.statement).toBe('User prefers morning flights.');
    expect(after.statement).toBe('User prefers afternoon flights.');
    expect(only('Evening trains work better for me').attribute).toBe('preference.train');
    expect(only("I'd rather take afternoon flights from now on").attribute).toBe('preference.flight');
    expect(read("I'd rather wait and see")).toEqual([]);
  });

  it('gives one attribute to one thing, however it is said', () => {
    expect(
      attributes([
        'I live in Berlin.',
        "I'm living in Oslo these days",
        "We've moved to Lisbon",
        'I am based in Leeds',
      ]),
    ).toEqual(['residence', 'residence', 'residence', 'residence']);
    expect(attributes(['My name is Sam Carter.', 'Call me Sammy.', 'You can call me Jo', "my name's Ana"])).toEqual([
      'name',
      'name',
      'name',
      'name',
    ]);
    expect(
      attributes(['I work as a nurse.', "I'm a software engineer at Acme.", "I'm working as a barista now"]),
    ).toEqual(['occupation', 'occupation', 'occupation']);
    expect(attributes(['I love sushi', "I don't like sushi anymore", 'I really hate sushi'])).toEqual([
      'like.sushi',
      'like.sushi',
      'like.sushi',
    ]);
    expect(attributes(["I'm allergic to peanuts", "I'm not allergic to peanuts anymore"])).toEqual([
      'constraint.allergy.peanut',
      'constraint.allergy.peanut',
    ]);
    expect(attributes(['I am vegetarian.', "I'm a vegan now", "I'm no longer vegetarian"])).toEqual([
      'diet',
      'diet',
      'diet',
    ]);
  });

  it('keeps lists apart and things one has several of additive', () => {
    const likes = read('I love hiking, cooking and old movies');
    expect(likes.map((s) => s.attribute)).toEqual(['like.hiking', 'like.cooking', 'like.old-movie']);
    expect(likes.map((s) => s.statement)).toEqual([
      'User loves hiking.',
      'User loves cooking.',
      'User loves old movies.',
    ]);
    const allergies = read("I'm allergic to cats and dogs.");
    expect(allergies.map((s) => [s.attribute, s.single])).toEqual([
      ['constraint.allergy.cat', false],
      ['constraint.allergy.dog', false],
    ]);
    expect(only('I have a dog named Rex.')).toMatchObject({ kind: 'pet', attribute: 'pet.dog.rex', single: false });
    expect(only('We adopted a puppy called Biscuit in March')).toMatchObject({ kind: 'pet', value: 'Biscuit' });
    expect(only('My sister Mia')).toMatchObject({ attribute: 'person.sister.mia', single: false });
    expect(only('My wife, Anna, loves jazz')).toMatchObject({ attribute: 'person.wife', single: true, value: 'Anna' });
    expect(only('my younger friend Megan recommended it').attribute).toBe('person.friend.megan');
  });

  it('reads retractions as retracted, and a dislike as a statement that holds', () => {
    expect(only("I don't live in Berlin anymore.")).toMatchObject({ attribute: 'residence', polarity: 'retracted' });
    expect(only('I no longer eat meat.')).toMatchObject({
      polarity: 'retracted',
      statement: 'User no longer eats meat.',
    });
    expect(only('I stopped smoking.')).toMatchObject({ polarity: 'retracted' });
    expect(only('I quit my job last week.')).toMatchObject({ attribute: 'employer', polarity: 'retracted' });
    expect(only("I'm not vegetarian anymore.")).toMatchObject({ attribute: 'diet', polarity: 'retracted' });
    expect(only("I really don't like horror movies.")).toMatchObject({
      attribute: 'like.horror-movie',
      polarity: 'holds',
      statement: 'User really does not like horror movies.',
    });
    // "won't quit" keeps going: no retraction.
    expect(read("I won't quit on my dreams")).toEqual([]);
  });

  it('resolves times against the message and writes the date into the memory', () => {
    const moving = only("I'm moving to Rome next month.");
    expect(moving).toMatchObject({ attribute: 'residence', validFrom: '2024-06-01', value: 'Rome' });
    expect(moving.statement).toBe('User is moving to Rome in 2024-06.');
    const flight = only("I'm flying to Rome next Tuesday.");
    expect(flight).toMatchObject({ kind: 'plan', validFrom: '2024-05-21' });
    expect(flight.statement).toBe('User is flying to Rome on 2024-05-21.');
    expect(only("I've been living in Toronto since 2019.")).toMatchObject({ validFrom: '2019-01-01' });
    expect(only('I have lived in Rome for 3 years')).toMatchObject({ validFrom: '2021-05-15' });
    expect(only("I've been vegan for two years now.")).toMatchObject({ attribute: 'diet', validFrom: '2022-05-15' });
    expect(only('I live in Oslo until June')).toMatchObject({ validTo: '2024-07-01', validFrom: null });
    // The same words a year later name another date.
    expect(only("I'm moving to Rome next month.", '2025-12-20T08:00:00Z').validFrom).toBe('2026-01-01');
    expect(only('I was born in 1990.')).toMatchObject({ attribute: 'birth-year', value: '1990' });
  });

  it('reads explicit requests to remember and instructions from now on', () => {
    expect(only('Remember that my passport expires in March.')).toMatchObject({ kind: 'note' });
    expect(only('Please remember I take my coffee black.')).toMatchObject({
      kind: 'note',
      statement: 'User takes their coffee black.',
    });
    expect(only('From now on, answer in French.')).toMatchObject({
      kind: 'note',
      validFrom: '2024-05-15',
      statement: 'From now on: answer in French.',
    });
    expect(only('From now on, call me Sam')).toMatchObject({ attribute: 'name', value: 'Sam' });
  });

  it('keeps a statement before a question, and drops the question', () => {
    expect(only('I prefer simple, minimal dependencies, how can I keep my app small?')).toMatchObject({
      attribute: 'preference.dependency',
      statement: 'User prefers simple, minimal dependencies.',
    });
    expect(read('Should I move to Rome?')).toEqual([]);
    expect(read('Do you think I like jazz?')).toEqual([]);
  });

  it('gives nothing for small talk, wishes, advice, pronouns and past events', () => {
    for (const text of [
      "I'm tired.",
      'I had pizza yesterday.',
      'I love it!',
      'I like that idea.',
      "I'd love to visit Japan.",
      'I would like a coffee.',
      'Thanks, that helps!',
      'Remember to take care of yourself.',
      'Just remember, staying positive is important.',
      "I'm starting next month.",
      "I'll always remember our camping trip last year.",
      "I'm a fan too.",
      'I think so.',
      'If I lived in Paris I would be happy.',
      'I really like your recipe.',
      'Haha, I know right',
      'Anna moved to Rome.',
      'constructor __proto__ toString valueOf hasOwnProperty',
      'I love constructor and __proto__',
      '',
    ]) {
      const found = read(text).filter((s) => !s.attribute.includes('constructor') && !s.attribute.includes('proto'));
      expect(found, `${text}: ${JSON.stringify(found)}`).toEqual([]);
    }
  });

  it('reads more ways of saying the same classes of thing', () => {
    const cases: [string, string, Partial<Statement>][] = [
      ["These days I'm really into jazz", 'like.jazz', {}],
      ['I relocated to Denver in January', 'residence', { validFrom: '2024-01-01' }],
      ["I'm a teacher", 'occupation', {}],
      ["I'm gluten-free", 'constraint.avoid.gluten', {}],
      ["I've switched to decaf", 'preference.decaf', {}],
      ["I'm going to Japan in April", 'plan.going-japan', { validFrom: '2025-04-01' }],
      ["I've got a golden retriever called Max", 'pet.retriever.max', { value: 'Max' }],
      ["I'm originally from Lagos", 'origin', { value: 'Lagos' }],
      ["my birthday's on 3 March", 'birthday', { validFrom: null, statement: "User's birthday is 3 March." }],
    ];
    for (const [text, attribute, more] of cases) expect(only(text), text).toMatchObject({ attribute, ...more });
    const job = read("I'm no longer at Google, I joined Meta last month");
    expect(job.map((s) => [s.attribute, s.polarity, s.value])).toEqual([
      ['employer', 'retracted', 'Google'],
      ['employer', 'holds', 'Meta'],
    ]);
    expect(read('I have a lab report due')).toEqual([]);
  });

  it('says where each statement came from', () => {
    const text = 'Hi! I live in Berlin, Germany and I work at Acme. My favorite color is green.';
    const found = read(text);
    expect(found.map((s) => [s.attribute, s.value])).toEqual([
      ['residence', 'Berlin, Germany'],
      ['employer', 'Acme'],
      ['favorite.color', 'green'],
    ]);
    for (const s of found) {
      expect(text.slice(s.index, s.index + s.source.length)).toBe(s.source);
      expect(s.subject).toBe('user');
      expect(s.attribute).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/);
    }
  });

  it('runs in linear time on long and repetitive messages', () => {
    const pieces = [
      'I love hiking, ',
      'and I and I and ',
      'I am a a a a ',
      'my my my wife ',
      'remember that remember that ',
      'from now on from now on ',
      'I have lived for for for ',
      ', how , how , how ',
      'I prefer the the the ',
    ];
    for (const piece of pieces)
      expect(
        growthOf((text) => read(text), piece, 4_000),
        piece,
      ).toBeLessThan(24);
  });
});
