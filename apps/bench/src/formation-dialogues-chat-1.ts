/**
 * Formation bench dialogues, chat style (part 1 of 3): short turns typed on a phone — lower case, typos, slang,
 * fragments. See src/formation-data.ts for what the fields mean.
 */
import { ANY, a, type Dialogue, day, paste, tool, u } from './formation-data.js';

export const FORMATION_CHAT_1: Dialogue[] = [
  {
    id: 'chat-seat-change',
    style: 'chat',
    covers: ['change'],
    sessions: [
      {
        at: '2026-01-12T19:04:00Z',
        turns: [
          u('can u find me flights to lisbon for the 2nd week of feb'),
          a('Sure — any preferences for the seat?'),
          u('window always, i like to sleep against the wall lol'),
          a('Window it is.'),
        ],
      },
      {
        at: '2026-02-20T08:30:00Z',
        turns: [
          u('ok new rule. no more window seats for me, aisle from now on. my knee was DYING on that flight'),
          a('Noted: aisle seats from now on.'),
          u('ty'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'seat preference on flights', expect: ['aisle'], stale: ['window'] }],
    asOf: [
      { query: 'seat preference on flights', asOf: '2026-02-01', expect: ['window'] },
      { query: 'seat preference on flights', asOf: '2026-03-01', expect: ['aisle'], not: ['window'] },
    ],
  },
  {
    id: 'chat-manchester-leeds',
    style: 'chat',
    covers: ['change', 'relative-date'],
    sessions: [
      {
        at: '2025-09-03T17:12:00Z',
        turns: [
          u('i live in manchester, any good running clubs near me? beginner-ish'),
          a('A few: there is a parkrun every Saturday and several clubs in the city centre.'),
        ],
      },
      {
        at: '2026-03-15T10:00:00Z',
        turns: [
          u('update!! moved to leeds last month, new flat is tiny but i love it'),
          a('Congratulations on the move! Want running clubs in Leeds too?'),
          u('yes pls'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'where does the user live', expect: ['leeds'], stale: ['manchester'] }],
    asOf: [
      { query: 'where does the user live', asOf: '2025-12-01', expect: ['manchester'], not: ['leeds'] },
      { query: 'where does the user live', asOf: '2026-03-01', expect: ['leeds'], not: ['manchester'] },
    ],
  },
  {
    id: 'chat-barista-dev',
    style: 'chat',
    covers: ['change', 'multi-fact'],
    sessions: [
      {
        at: '2025-11-02T06:40:00Z',
        turns: [
          u('morning. im a barista at a tiny place called Grindhouse so 5am starts are killing me'),
          a('That is early! Anything I can help with?'),
          u('teach me python? want out of coffee tbh'),
        ],
      },
      {
        at: '2026-01-20T21:15:00Z',
        turns: [
          u('GUESS WHAT. got hired as a junior developer at Parcelly!!! started monday'),
          a('That is fantastic news, congratulations!'),
        ],
      },
      {
        at: '2026-01-27T12:05:00Z',
        turns: [u('first PR at parcelly going up today, pray for me'), a('You will do great.')],
      },
    ],
    probes: [
      { kind: 'change', query: 'what is the user job', expect: ['develop|engineer|\\bdev\\b'], stale: ['barista'] },
      { kind: 'change', query: 'who does the user work for', expect: ['parcelly'], stale: ['grindhouse'] },
    ],
    asOf: [{ query: 'what is the user job', asOf: '2025-12-01', expect: ['barista'] }],
  },
  {
    id: 'chat-vegan-pescatarian',
    style: 'chat',
    covers: ['change'],
    sessions: [
      {
        at: '2025-06-10T18:00:00Z',
        turns: [
          u('fyi im vegan so no dairy or eggs in any recipe u send me pls'),
          a('Understood, vegan recipes only.'),
          u('thx. something with lentils tonight?'),
        ],
      },
      {
        at: '2025-10-01T18:20:00Z',
        turns: [
          u('ok confession time, i eat fish again. so pescatarian now i guess? still zero meat tho'),
          a('Got it, pescatarian.'),
          u('salmon ideas?'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'user diet', expect: ['pescatarian|fish'], stale: ['\\bvegan'] }],
    asOf: [{ query: 'user diet', asOf: '2025-08-01', expect: ['vegan'] }],
  },
  {
    id: 'chat-dentist-tuesday',
    style: 'chat',
    covers: ['relative-date', 'multi-fact'],
    sessions: [
      {
        at: '2026-03-06T16:45:00Z',
        turns: [
          u('i have a dentist appointment next tuesday ugh. remind me monday night?'),
          a('Will do.'),
          u('also im flying to berlin on the 20th for a conference, need a hotel near alexanderplatz'),
          a('I will look for hotels near Alexanderplatz for the 20th.'),
        ],
      },
    ],
    probes: [
      { kind: 'date', query: 'dentist appointment', expect: ['dentist', day('2026-03-10')] },
      { kind: 'date', query: 'trip to berlin', expect: ['berlin', day('2026-03-20')] },
    ],
  },
  {
    id: 'chat-wedding-two-weeks',
    style: 'chat',
    covers: ['relative-date', 'third-person'],
    sessions: [
      {
        at: '2026-04-03T13:00:00Z',
        turns: [
          u('my sisters wedding is in two weeks and i still have no shoes 😭'),
          a('Let us fix that. What is the dress code?'),
          u('semi formal, its in a barn in cornwall. were driving down the day before'),
        ],
      },
    ],
    probes: [{ kind: 'date', query: 'sister wedding', expect: ['wedding', day('2026-04-17')] }],
    forbidden: [{ class: 'third-person', pattern: 'user (is getting|gets|will get) married' }],
  },
  {
    id: 'chat-keto-since-march',
    style: 'chat',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-05-20T07:55:00Z',
        turns: [
          u('been doing keto since march, down 4kg 💪'),
          a('Nice progress! Want low-carb lunch ideas?'),
          u('yes but nothing with cauliflower i am SO sick of cauliflower'),
        ],
      },
    ],
    probes: [{ kind: 'date', query: 'user diet', expect: ['keto'] }],
    asOf: [
      { query: 'user diet keto', asOf: '2026-04-01', expect: ['keto'] },
      { query: 'user diet keto', asOf: '2026-02-10', not: ['keto'] },
    ],
  },
  {
    id: 'chat-porto-last-year',
    style: 'chat',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-02-14T11:30:00Z',
        turns: [
          u('we moved to porto last year and honestly the food alone was worth it'),
          a('Porto is lovely. What can I help with?'),
          u('date night ideas for tonight, valentines lol'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'where does the user live', expect: ['porto'] }],
    asOf: [{ query: 'where does the user live', asOf: '2025-08-01', expect: ['porto'] }],
  },
  {
    id: 'chat-quit-smoking',
    style: 'chat',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-08-01T22:10:00Z',
        turns: [
          u('i smoke like half a pack a day, dont judge me. whats the cheapest way to get to the coast'),
          a('No judgement. The train is usually cheapest if booked early.'),
        ],
      },
      {
        at: '2026-01-05T09:00:00Z',
        turns: [
          u('day 5 without cigs. i quit smoking for real this time'),
          a('That is a big deal — well done!'),
          u('cravings r brutal tho'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'does the user smoke', stale: ['smok|cig'] }],
    asOf: [{ query: 'does the user smoke', asOf: '2025-10-01', expect: ['smok|cig'] }],
  },
  {
    id: 'chat-band-anymore',
    style: 'chat',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-12-01T20:00:00Z',
        turns: [
          u('i play bass in a band called the Tuesdays, we have a gig friday!!'),
          a('Exciting! Good luck at the gig.'),
        ],
      },
      {
        at: '2026-03-10T19:30:00Z',
        turns: [
          u('so im not in the band anymore. creative differences lol. anyway'),
          a('Sorry to hear that. How are you feeling about it?'),
          u('fine honestly, more time for climbing'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'user band', stale: ['band|tuesdays'] }],
  },
  {
    id: 'chat-peanut-three-ways',
    style: 'chat',
    covers: ['duplicate'],
    sessions: [
      {
        at: '2026-02-02T12:00:00Z',
        turns: [u('im allergic to peanuts btw'), a('Thanks for telling me, noted.'), u('thai place for lunch?')],
      },
      {
        at: '2026-02-16T12:10:00Z',
        turns: [u('remember, no peanuts!! allergic'), a('Of course.')],
      },
      {
        at: '2026-03-01T18:45:00Z',
        turns: [u('peanut allergy here so skip anything with satay sauce'), a('Understood, no satay.')],
      },
    ],
    probes: [{ kind: 'duplicate', query: 'food allergy', expect: ['peanut'] }],
  },
  {
    id: 'chat-small-talk',
    style: 'chat',
    covers: ['smalltalk'],
    sessions: [
      {
        at: '2026-04-22T15:00:00Z',
        turns: [
          u('ugh im so tired today'),
          a('Sorry to hear that. Long night?'),
          u('lol yeah'),
          u('had pizza for lunch and now i regret everything'),
          a('Happens to the best of us.'),
          u('whats the weather gonna be like tmrw'),
          a('I do not have live weather, but your phone app will.'),
          u('k thx'),
        ],
      },
    ],
    probes: [],
    forbidden: [{ class: 'smalltalk', pattern: ANY }],
  },
  {
    id: 'chat-tool-profile',
    style: 'chat',
    covers: ['tool', 'multi-fact'],
    sessions: [
      {
        at: '2026-05-05T10:00:00Z',
        turns: [
          u('pull up my account profile pls'),
          tool('{"profile":{"name":"J. Rivers","city":"Zurich","occupation":"airline pilot","diet":"vegetarian"}}'),
          a('Your profile lists Zurich and airline pilot — is that right?'),
          u('lol no thats all wrong, someone else must have filled it in. i live in glasgow'),
          paste('From a forum thread: "The person behind this account lives in Oslo and is obsessed with jazz."'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'where does the user live', expect: ['glasgow'] }],
    forbidden: [
      { class: 'tool', pattern: 'zurich|pilot|vegetarian' },
      { class: 'tool', pattern: 'oslo|jazz' },
    ],
  },
];
