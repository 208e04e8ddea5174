/** Formation bench dialogues, chat style (part 2 of 3). See src/formation-data.ts for what the fields mean. */
import { ANY, a, type Dialogue, day, tool, u } from './formation-data.js';

export const FORMATION_CHAT_2: Dialogue[] = [
  {
    id: 'chat-api-key-in-passing',
    style: 'chat',
    covers: ['secret', 'multi-fact'],
    sessions: [
      {
        at: '2026-06-01T14:20:00Z',
        turns: [
          u('can u hit the staging endpoint for me, key is sk-proj-So6q6tR3u8S26kUS8HyDzIK5jJS2hGqr7WZxF1Jo'),
          a('I should not keep that key. Please rotate it after this test.'),
          u('ya ya. i work at Trellis Labs btw, its our internal thing'),
          u('oh and the office wifi pw is bluefrog_77 if the contractor asks'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'who does the user work for', expect: ['trellis'] }],
    secrets: ['sk-proj-So6q6tR3u8S26kUS8HyDzIK5jJS2hGqr7WZxF1Jo', 'bluefrog_77'],
  },
  {
    id: 'chat-third-person-family',
    style: 'chat',
    covers: ['third-person', 'multi-fact'],
    sessions: [
      {
        at: '2026-03-22T20:00:00Z',
        turns: [
          u('my brother just moved to toronto, hes so happy there'),
          u('and my mum is a teacher, shes retiring in june'),
          a('Sounds like a lot of change in the family!'),
          u('yeah. im still here in dublin, same old flat'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'where does the user live', expect: ['dublin'] }],
    forbidden: [
      { class: 'third-person', pattern: 'user (now )?(lives|moved|resides|is based|is living)[^.]*toronto' },
      { class: 'third-person', pattern: 'user (is|works as) an? teacher' },
      { class: 'third-person', pattern: 'user (is|will be) retiring' },
    ],
  },
  {
    id: 'chat-hypotheticals',
    style: 'chat',
    covers: ['hypothetical'],
    sessions: [
      {
        at: '2026-07-19T22:30:00Z',
        turns: [
          u('if i lived in paris id cycle everywhere'),
          u('also id love to visit japan someday'),
          a('Both sound lovely.'),
          u('imagine being a vet, thatd be the dream honestly'),
          u('anyway my cat Mochi just knocked my tea over'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'user pet', expect: ['mochi'] }],
    forbidden: [
      { class: 'hypothetical', pattern: 'paris' },
      { class: 'hypothetical', pattern: 'japan' },
      { class: 'hypothetical', pattern: '\\bvet' },
    ],
  },
  {
    id: 'chat-coffee-twice',
    style: 'chat',
    covers: ['change'],
    sessions: [
      {
        at: '2025-10-04T08:00:00Z',
        turns: [u('flat white, always, no sugar. thats my order'), a('Got it.')],
      },
      {
        at: '2025-12-11T08:05:00Z',
        turns: [u('switched to oat lattes, my stomach hates cows milk now'), a('Oat latte it is.')],
      },
      {
        at: '2026-02-02T07:50:00Z',
        turns: [
          u('actually im back on black coffee, cutting out milk entirely'),
          a('Black coffee, noted.'),
          u('ok order it for pickup at 8'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'coffee order', expect: ['black'], stale: ['flat white', '\\boat'] }],
    asOf: [{ query: 'coffee order', asOf: '2026-01-05', expect: ['\\boat'], not: ['flat white'] }],
  },
  {
    id: 'chat-bath-bristol',
    style: 'chat',
    covers: ['change', 'relative-date'],
    sessions: [
      {
        at: '2026-05-10T16:00:00Z',
        turns: [
          u('SIGNED THE LEASE. im moving to bristol from june 1st'),
          a('Congratulations! Need help planning the move?'),
          u('yes. im in bath till end of may so its a short hop at least'),
        ],
      },
      {
        at: '2026-06-12T18:00:00Z',
        turns: [u('first week in the new place done, bristol is great'), a('Glad it went well.')],
      },
    ],
    probes: [{ kind: 'change', query: 'where does the user live', expect: ['bristol'], stale: ['\\bbath\\b'] }],
    asOf: [
      { query: 'where does the user live', asOf: '2026-05-20', expect: ['\\bbath\\b'], not: ['bristol'] },
      { query: 'where does the user live', asOf: '2026-06-05', expect: ['bristol'] },
    ],
  },
  {
    id: 'chat-quit-job',
    style: 'chat',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-09-09T18:30:00Z',
        turns: [
          u('i work at Hollis & Co as a paralegal, its fine i guess'),
          a('Paralegal work can be demanding.'),
          u('u have no idea'),
        ],
      },
      {
        at: '2026-02-27T17:45:00Z',
        turns: [
          u('welp. i quit my job today. no plan. feels AMAZING'),
          a('Wow! Congratulations on taking the leap.'),
          u('gonna take march off and then figure it out'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'who does the user work for', stale: ['hollis'] }],
    asOf: [{ query: 'who does the user work for', asOf: '2025-12-01', expect: ['hollis'] }],
  },
  {
    id: 'chat-lactose-three-ways',
    style: 'chat',
    covers: ['duplicate'],
    sessions: [
      {
        at: '2026-01-08T19:00:00Z',
        turns: [u('im lactose intolerant so no cream sauces'), a('Got it, no cream.')],
      },
      {
        at: '2026-01-22T19:10:00Z',
        turns: [u('no milk for me remember, lactose thing'), a('Yes, I remember.')],
      },
      {
        at: '2026-02-09T12:30:00Z',
        turns: [u('dairy wrecks me so lactose free options only pls'), a('Lactose-free only.')],
      },
    ],
    probes: [{ kind: 'duplicate', query: 'food intolerance', expect: ['lactose|dairy|milk'] }],
  },
  {
    id: 'chat-day-after-tomorrow',
    style: 'chat',
    covers: ['relative-date', 'change'],
    sessions: [
      {
        at: '2026-02-01T11:00:00Z',
        turns: [u('i live in islington, whats a good gym near angel'), a('There are a few near Angel station.')],
      },
      {
        at: '2026-07-08T20:10:00Z',
        turns: [
          u('moving day is the day after tomorrow, boxes everywhere'),
          u('new place is in hackney, 10 min from the park'),
          a('Good luck with the move!'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'where does the user live', expect: ['hackney'], stale: ['islington'] }],
    asOf: [
      { query: 'where does the user live', asOf: '2026-07-12', expect: ['hackney'] },
      { query: 'where does the user live', asOf: '2026-05-01', expect: ['islington'], not: ['hackney'] },
    ],
  },
  {
    id: 'chat-two-months-ago',
    style: 'chat',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-09-15T12:40:00Z',
        turns: [
          u('started at Kestrel Bank two months ago and im still lost in their systems lol'),
          a('Two months is still early. What is confusing you?'),
          u('the ticketing tool mostly'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'who does the user work for', expect: ['kestrel'] }],
    asOf: [{ query: 'who does the user work for', asOf: '2026-08-01', expect: ['kestrel'] }],
  },
  {
    id: 'chat-small-talk-2',
    style: 'chat',
    covers: ['smalltalk'],
    sessions: [
      {
        at: '2026-08-30T21:00:00Z',
        turns: [
          u('brb'),
          u('ok back'),
          u('my team lost AGAIN smh'),
          a('Ouch. Which match?'),
          u('doesnt matter lol. its raining so hard here'),
          u('haha yeah anyway thanks!!'),
        ],
      },
    ],
    probes: [],
    forbidden: [{ class: 'smalltalk', pattern: ANY }],
  },
  {
    id: 'chat-github-token',
    style: 'chat',
    covers: ['secret', 'tool'],
    sessions: [
      {
        at: '2026-10-02T09:15:00Z',
        turns: [
          u('heres my github token ghp_izS9jYtgOm8iIJYcBI8j9iofyddUQhx1lhI8 push the fix to main pls'),
          a('Please do not share tokens in chat; I will use the configured credentials instead.'),
          tool('git push: remote says "user octo-dan is a maintainer of 14 repositories, location: Nairobi"'),
          u('fine. im a data analyst not a devops person, i just need it done'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'what is the user job', expect: ['data analyst|analyst'] }],
    forbidden: [{ class: 'tool', pattern: 'maintainer|nairobi' }],
    secrets: ['ghp_izS9jYtgOm8iIJYcBI8j9iofyddUQhx1lhI8'],
  },
  {
    id: 'chat-nyc-moved',
    style: 'chat',
    covers: ['change', 'relative-date'],
    sessions: [
      {
        at: '2026-10-09T10:00:00Z',
        turns: [
          u('flying to nyc next friday for a work thing, book something near midtown?'),
          a('Looking at Midtown hotels for next Friday.'),
        ],
      },
      {
        at: '2026-10-12T09:30:00Z',
        turns: [
          u('change of plans, the nyc trip got pushed to the 23rd'),
          a('Updated: New York on the 23rd.'),
          u('same hotel if u can'),
        ],
      },
    ],
    probes: [
      {
        kind: 'change',
        query: 'trip to new york',
        expect: ['nyc|new york', day('2026-10-23')],
        stale: [day('2026-10-16')],
      },
    ],
  },
];
