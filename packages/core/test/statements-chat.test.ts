/**
 * The offline reader on statements as people type them (issue 33): contractions without apostrophes, lead-ins,
 * emphasis that is no question and a question after a statement, names in any script, fillers, times that belong to
 * another clause, changes said with other verbs, and the "I" that chat drops. Each class said several ways, with what
 * must still give nothing: small talk, questions, hypotheticals, other people's facts.
 */
import { describe, expect, it } from 'vitest';
import { firstPersonStatements, type Statement } from '../src/domain/statements/index.js';
import { growthOf } from './linear-time.js';

/** A Wednesday. */
const AT = '2024-05-15T10:00:00Z';

const read = (text: string) => firstPersonStatements(text, AT);
const only = (text: string): Statement => {
  const found = read(text);
  expect(found, `${text}: ${JSON.stringify(found.map((s) => [s.attribute, s.value]))}`).toHaveLength(1);
  return found[0]!;
};
/** Every text reads one statement with these fields. */
const each = (cases: [string, Partial<Statement>][]) => {
  for (const [text, want] of cases) expect(only(text), text).toMatchObject(want);
};
const nothing = (texts: string[]) => {
  for (const text of texts) expect(read(text), text).toEqual([]);
};

describe('firstPersonStatements on chat', () => {
  it('opens contractions typed without an apostrophe or with a curly one', () => {
    each([
      ['fyi im vegetarian so no steak pls', { attribute: 'diet', value: 'vegetarian' }],
      ['ive been pescatarian since 2021', { attribute: 'diet', validFrom: '2021-01-01' }],
      ['im originally from Cork', { attribute: 'origin', value: 'Cork' }],
      ['i dont like olives anymore', { attribute: 'like.olive', polarity: 'retracted' }],
      ['i cant stand country music', { attribute: 'like.country-music', stance: 'against' }],
      ['i cant eat shellfish', { attribute: 'constraint.eat-shellfish', statement: 'User can not eat shellfish.' }],
      ['I’m allergic to kiwi', { attribute: 'constraint.allergy.kiwi' }],
      ['I`m a paramedic', { attribute: 'occupation', value: 'paramedic' }],
      ['thats it, i live in Cardiff now', { attribute: 'residence', value: 'Cardiff' }],
      ['id rather have tea', { attribute: 'preference.tea' }],
      ['ill start keto on monday', { kind: 'plan', validFrom: '2024-05-20' }],
      ['im not married anymore', { attribute: 'relationship', polarity: 'retracted' }],
    ]);
    // "ill" and "id" that are the words themselves.
    nothing([
      'im ill today lol',
      'she was ill last week',
      'my id expired',
      'mentally ill people need care',
      'shes vegan',
    ]);
  });

  it('reads the clause after a lead-in', () => {
    each([
      ['Big update: i started at Monzo last week', { attribute: 'employer', value: 'Monzo', validFrom: '2024-05-06' }],
      ['Random thought - I’m allergic to kiwi', { attribute: 'constraint.allergy.kiwi' }],
      ['So yeah, I’m a pharmacist now', { attribute: 'occupation', value: 'pharmacist' }],
      ['ok so honestly, we moved to Galway in April', { attribute: 'residence', validFrom: '2024-04-01' }],
      ['Last thing: my cat is called Pixel', { attribute: 'pet.cat.pixel' }],
      ['Anyway, long story short, I live in Porto', { attribute: 'residence', value: 'Porto' }],
      ['Status report — I quit my job', { attribute: 'employer', polarity: 'retracted' }],
      ['New month, new me: I am not vegetarian anymore', { attribute: 'diet', polarity: 'retracted' }],
    ]);
    // A time that opens the lead-in, or the clause, is the clause's.
    each([
      [
        'In January, I went vegan',
        { attribute: 'diet', validFrom: '2024-01-01', statement: 'User went vegan in 2024-01.' },
      ],
      ['Last month I moved to Leeds', { attribute: 'residence', validFrom: '2024-04-01' }],
      ['at the end of last year I joined Initech', { attribute: 'employer', validFrom: '2023-12-31' }],
    ]);
    nothing([
      'Big news: Anna moved to Rome',
      'Quick question - should I move to Rome?',
      'Fun fact: octopuses have three hearts',
      'Anna: moved to Rome last year',
      'my sister - got a puppy last week',
      'Update: nothing new really',
    ]);
  });

  it('reads emphasis as no question, keeps a statement before a question and never glues the question on', () => {
    each([
      ['i actually love hiking now??', { attribute: 'like.hiking', statement: 'User actually loves hiking.' }],
      ['I love jazz!!!', { attribute: 'like.jazz' }],
      ['we moved to Leeds?!', { attribute: 'residence', value: 'Leeds' }],
      ['I live in Norwich, any good climbing gyms around?', { value: 'Norwich', statement: 'User lives in Norwich.' }],
      ['I moved to Bath last month, where should I eat', { statement: 'User moved to Bath in 2024-04.' }],
      ['im vegan whats a good protein source', { attribute: 'diet', statement: 'User is vegan.' }],
      ['i live in hackney, wheres the nearest pool?', { value: 'hackney', statement: 'User lives in hackney.' }],
      ['I live in Leeds where’s a good gym', { statement: 'User lives in Leeds.' }],
      ['Hey, I work at Ocado, could you help me with a cover letter', { statement: 'User works at Ocado.' }],
    ]);
    const got = read('I got a puppy?! still cant believe it');
    expect(got.map((s) => s.attribute)).toEqual(['pet.puppy']);
    for (const s of read('im vegan, any good recipes? also i live in Bristol, is there a vegan market?'))
      expect(s.statement).not.toMatch(/recipe|market|\?/);
    nothing([
      'do i love jazz??',
      'Should I go vegan?!',
      'What if I moved to Rome, would I like it?',
      'Is it weird that I hate cheese, like at all?',
      'Do you think, since I am vegan, I should eat tofu?',
    ]);
  });

  it('keeps every letter of names and words in any script', () => {
    each([
      ['my husband Tomás is a chef', { attribute: 'person.husband', value: 'Tomás' }],
      ['my daughter Inês started school', { attribute: 'person.daughter.ines', value: 'Inês' }],
      ['I have a cat named Søren', { attribute: 'pet.cat.soren', value: 'Søren' }],
      ['I live in Zürich', { value: 'Zürich', statement: 'User lives in Zürich.' }],
      ["I'm from São Paulo", { attribute: 'origin', value: 'São Paulo' }],
      ['my wife is called Françoise', { value: 'Françoise' }],
      ['I love crème brûlée', { attribute: 'like.creme-brulee', value: 'crème brûlée' }],
      ['my friend 美咲 lives nearby', { value: '美咲' }],
      ['I moved to Malmö in June', { value: 'Malmö' }],
      ['my boss is Ólafur Guðmundsson', { value: 'Ólafur Guðmundsson' }],
    ]);
    // Keys stay lower-case a-z, digits and hyphens, and two names never share one.
    const keys = ['my friend 美咲', 'my friend 美雪', 'my dog Straße'].map((t) => only(t).attribute);
    for (const k of keys) expect(k).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/);
    expect(new Set(keys).size).toBe(3);
    // "in Maré" is no March.
    expect(only('I live in Maré').validFrom).toBeNull();
  });

  it('never keeps a filler as the value, the key or the memory', () => {
    each([
      [
        "I'm allergic to peanuts btw",
        { attribute: 'constraint.allergy.peanut', statement: 'User is allergic to peanuts.' },
      ],
      ['i love sushi lol', { attribute: 'like.sushi', value: 'sushi' }],
      ['I prefer aisle seats these days', { attribute: 'preference.seat', value: 'aisle seats' }],
      ['im vegetarian i guess', { statement: 'User is vegetarian.' }],
      ['I work at Spotify now tbh', { attribute: 'employer', value: 'Spotify' }],
      ['i live in leeds now hahaha', { value: 'leeds', statement: 'User lives in leeds.' }],
      ['I hate cilantro though', { attribute: 'like.cilantro', value: 'cilantro' }],
      ['I think I’m allergic to cats', { attribute: 'constraint.allergy.cat' }],
      ['I’m into bouldering, I think', { attribute: 'like.bouldering', statement: 'User is into bouldering.' }],
      ['I live in Bergen at the moment lmao', { value: 'Bergen' }],
      ["I'm from Lisbon originally", { value: 'Lisbon' }],
    ]);
    for (const s of read('i guess im moving to Derby next month honestly'))
      expect(s.statement).not.toMatch(/guess|honestly/);
  });

  it('takes a start date only from the fact’s own clause and a change', () => {
    each([
      ['I hate cycling in winter', { validFrom: null, statement: 'User hates cycling in winter.' }],
      ['I love skiing in February', { validFrom: null }],
      ['I live in Oslo where it gets freezing in winter', { value: 'Oslo', validFrom: null }],
      ['my husband Tom - our anniversary is in August', { attribute: 'person.husband', validFrom: null }],
      ['my wife Ana turns 40 in June', { attribute: 'person.wife', validFrom: null }],
      ['I work at a ski shop in December', { attribute: 'employer', validFrom: null }],
    ]);
    expect(read('I live in Tromsø, it gets dark in December').map((s) => s.validFrom)).toEqual([null]);
    each([
      ["since March I've been vegan", { attribute: 'diet', validFrom: '2024-03-01' }],
      ['next week I’m flying to Oslo', { kind: 'plan', validFrom: '2024-05-20' }],
      ['I got a kitten last Friday', { kind: 'pet', validFrom: '2024-05-10' }],
      ['We relocated to Cork in February', { validFrom: '2024-02-01' }],
      ['I live in Oslo until June', { validFrom: null, validTo: '2024-07-01' }],
    ]);
  });

  it('reads changes of job and diet said with other verbs, and their retractions', () => {
    each([
      ['I got hired as a data analyst', { attribute: 'occupation', value: 'data analyst' }],
      ['I was promoted to team lead last month', { attribute: 'occupation', validFrom: '2024-04-01' }],
      ["I've been made a partner at the firm", { attribute: 'occupation', value: 'partner' }],
      ['I was made head of sales', { attribute: 'occupation', value: 'head of sales' }],
      ['I started as a sous chef in March', { attribute: 'occupation', value: 'sous chef', validFrom: '2024-03-01' }],
      ['I started at Monzo in June', { attribute: 'employer', value: 'Monzo' }],
      ["I'm starting at Arup early next month", { attribute: 'employer', value: 'Arup', validFrom: '2024-06-01' }],
      ['I got a job at Lidl', { attribute: 'employer', value: 'Lidl' }],
      ['I got laid off last week', { attribute: 'employer', polarity: 'retracted' }],
      ['I was let go from Initech', { attribute: 'employer', polarity: 'retracted', value: 'Initech' }],
      ['I became a teacher', { attribute: 'occupation', value: 'teacher' }],
      ["I'm on a low carb diet", { attribute: 'diet', value: 'low-carb' }],
      ["I'm on a keto diet now", { attribute: 'diet', value: 'keto', polarity: 'holds' }],
      ["I'm doing paleo these days", { attribute: 'diet', value: 'paleo' }],
      ['im not doing keto anymore', { attribute: 'diet', value: 'keto', polarity: 'retracted' }],
      ["I'm off keto now", { attribute: 'diet', polarity: 'retracted' }],
      ['I gave up being vegetarian', { attribute: 'diet', polarity: 'retracted' }],
      ['I went pescatarian in January', { attribute: 'diet', validFrom: '2024-01-01' }],
      ["I don't have the dog anymore", { attribute: 'pet.dog', polarity: 'retracted' }],
      ["I'm a nurse, mainly night shifts in A&E", { attribute: 'occupation', value: 'nurse' }],
      ["I'm a developer, mostly backend stuff", { attribute: 'occupation', value: 'developer' }],
    ]);
    nothing([
      'I got promoted to the next round',
      'I started as a joke',
      'I started at 8am today',
      'I started at the bottom',
      'I was made aware of it',
      'my brother got hired as a pilot',
      "I'd love to get hired as a pilot",
      "if I get promoted to manager I'll celebrate",
      "I'm doing well thanks",
      "I'm on a roll",
      "I'm doing a vegan bake sale",
      "I don't have a car",
    ]);
  });

  it('reads the "I" chat drops before a life verb, and only there', () => {
    each([
      ['moved to bristol two weeks ago', { attribute: 'residence', value: 'bristol', validFrom: '2024-05-01' }],
      ['started at Octopus Energy last month', { attribute: 'employer', value: 'Octopus Energy' }],
      [
        'just adopted a greyhound called Pip',
        { attribute: 'pet.greyhound.pip', statement: 'User just adopted a greyhound called Pip.' },
      ],
      ['finally got married!!', { attribute: 'relationship', value: 'married' }],
      ['quit my job lol', { attribute: 'employer', polarity: 'retracted' }],
      ['live in glasgow now, its always raining', { value: 'glasgow', statement: 'User lives in glasgow.' }],
      ['work as a paramedic, nights mostly', { attribute: 'occupation', value: 'paramedic' }],
      ['Hi! relocated to Dundee in March', { validFrom: '2024-03-01' }],
    ]);
    expect(read('moved to york, got a cat and started at Nestle').map((s) => [s.attribute, s.value])).toEqual([
      ['residence', 'york'],
      ['pet.cat', 'cat'],
      ['employer', 'Nestle'],
    ]);
    expect(
      read("I'm from Lisbon but moved to London in 2015 and then started at Deloitte").map((s) => s.attribute),
    ).toEqual(['origin', 'residence', 'employer']);
    nothing([
      'went to the shops',
      'got home late lol',
      'got a coffee and a croissant',
      'got it, thanks',
      'started a new book',
      'quit whining',
      'quit smoking last year',
      'live in the moment',
      'live and learn',
      'work is mad busy',
      'work at the office today',
      'joined a gym',
      'moved the sofa',
      'moved on',
      'moved to leeds?',
      'should have moved to Leeds',
      'My sister is great. Moved to Rome last year.',
      'He works a lot. Got a new job at Google.',
      'moved to Rome apparently',
      'my wife moved to Leeds and started at Asda',
    ]);
  });

  it('reads a long rambling turn with several facts and a question, and nothing of the question', () => {
    const found = read(
      'ok so long story but basically im a nurse now, moved to leeds last month with my partner Sam, and we got a rescue dog called Biscuit - also im vegetarian btw, any tips for meal prep?',
    );
    expect(found.map((s) => [s.attribute, s.value])).toEqual([
      ['occupation', 'nurse'],
      ['residence', 'leeds'],
      ['pet.dog.biscuit', 'Biscuit'],
      ['diet', 'vegetarian'],
    ]);
    expect(found[1]!.validFrom).toBe('2024-04-01');
    for (const s of found) expect(s.statement).not.toMatch(/tips|meal|btw|\?/);
  });

  it('gives nothing for chat small talk, hypotheticals, other people and what is past', () => {
    nothing([
      'lol thats hilarious',
      'ok cool thanks!!',
      'hmm not sure tbh',
      'can you help me write an email to my landlord',
      'she just moved to Lisbon, got a cat too',
      'Anyway, my mum moved to Spain last year.',
      'Tom: got promoted to director last week',
      'if i moved to berlin would i need german?',
      'Hypothetically, if I got a puppy, what breed?',
      'Say I moved to Leeds - would rent be cheaper?',
      'imagine living in Tokyo lol',
      "I'd love to work at Google someday",
      'I used to live in Paris',
      'I tried keto once, hated it',
      'got a cold, feeling rubbish',
      'moved my meeting to friday',
      'joined the call late sorry',
      'got to go, bye',
      'Quick update - nothing much, just tired',
      'Big news: my brother is getting married!',
      "I'm kidding, I don't have a dog",
      "I'm not sure if I'm vegan anymore",
    ]);
  });

  it('runs in linear time on chat built to make it look back', () => {
    const pieces = [
      'im ill id ill ',
      'big news: quick update - ',
      'moved to leeds and started at ',
      'ok so, btw, lol, ',
      'i live in x, whats ',
      'i love it?? ',
      'haha lol tbh i guess ',
      'at the start of the end of early mid-late ',
      'Tomás Inês 美咲 ',
    ];
    for (const piece of pieces)
      expect(
        growthOf((text) => read(text), piece, 4_000),
        piece,
      ).toBeLessThan(24);
  });
});
