/** Formation bench dialogues, chat style (part 3 of 3). See src/formation-data.ts for what the fields mean. */
import { a, type Dialogue, paste, tool, u } from './formation-data.js';

export const FORMATION_CHAT_3: Dialogue[] = [
  {
    id: 'chat-search-results-diet',
    style: 'chat',
    covers: ['tool'],
    sessions: [
      {
        at: '2026-03-03T18:00:00Z',
        turns: [
          u('find me a restaurant for sat'),
          tool(
            'search_memory results: [1] "User prefers vegetarian restaurants" (score 0.41) [2] "User lives in Madrid" (score 0.38)',
          ),
          a('I found a few options. Any dietary needs?'),
          u('gluten free, coeliac. nothing else matters'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'dietary needs', expect: ['gluten|coeliac|celiac'] }],
    forbidden: [{ class: 'tool', pattern: 'vegetarian|madrid' }],
  },
  {
    id: 'chat-wishes',
    style: 'chat',
    covers: ['hypothetical'],
    sessions: [
      {
        at: '2026-04-11T13:00:00Z',
        turns: [
          u('would be so cool to move to lisbon one day'),
          u('if i had a dog id call it Biscuit'),
          a('Biscuit is a great dog name.'),
          u('maybe i should learn german? idk'),
          u('i do speak spanish tho, grew up with it'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'languages the user speaks', expect: ['spanish'] }],
    forbidden: [
      { class: 'hypothetical', pattern: 'lisbon' },
      { class: 'hypothetical', pattern: 'biscuit' },
      { class: 'hypothetical', pattern: 'german' },
    ],
  },
  {
    id: 'chat-goes-by-max',
    style: 'chat',
    covers: ['change'],
    sessions: [
      {
        at: '2025-11-20T10:00:00Z',
        turns: [u('hi! im Samantha but everyone calls me Sam'), a('Nice to meet you, Sam!')],
      },
      {
        at: '2026-04-02T10:00:00Z',
        turns: [u('small thing, i go by Max now. new chapter. pls use that'), a('Of course, Max.'), u('thank u')],
      },
    ],
    probes: [
      { kind: 'change', query: 'what is the user called', expect: ['\\bmax\\b'], stale: ['\\bsam\\b|samantha'] },
    ],
  },
  {
    id: 'chat-thirty',
    style: 'chat',
    covers: ['multi-fact', 'change'],
    sessions: [
      {
        at: '2025-08-14T19:00:00Z',
        turns: [
          u('quick intro: im 29, from cork originally, live in london now, work in marketing'),
          a('Thanks for the intro!'),
        ],
      },
      {
        at: '2025-12-03T09:00:00Z',
        turns: [u('turned 30 yesterday 🎉🎉 feel ancient'), a('Happy birthday!')],
      },
    ],
    probes: [
      { kind: 'change', query: 'how old is the user', expect: ['\\b30\\b|thirty'], stale: ['\\b29\\b'] },
      { kind: 'fact', query: 'where is the user from', expect: ['cork'] },
      { kind: 'fact', query: 'where does the user live', expect: ['london'] },
      { kind: 'fact', query: 'what is the user job', expect: ['marketing'] },
    ],
  },
  {
    id: 'chat-no-longer-drink',
    style: 'chat',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-07-02T20:00:00Z',
        turns: [u('red wine is my thing, a good rioja and im happy'), a('Rioja is a classic.')],
      },
      {
        at: '2026-01-15T20:00:00Z',
        turns: [
          u('i no longer drink alcohol btw, dry since new year and not going back'),
          a('Good for you. Want some alcohol-free options?'),
          u('yes!!'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'what does the user like to drink', stale: ['wine|rioja'] }],
  },
  {
    id: 'chat-austin-three-ways',
    style: 'chat',
    covers: ['duplicate'],
    sessions: [
      {
        at: '2026-06-03T15:00:00Z',
        turns: [u('i live in austin, best bbq near me?'), a('Austin has plenty.')],
      },
      {
        at: '2026-06-20T15:00:00Z',
        turns: [u('austin based here, any outdoor pools open late?'), a('Barton Springs is popular.')],
      },
      {
        at: '2026-07-04T15:00:00Z',
        turns: [u('its 40 degrees here in austin lol send help'), a('Stay hydrated!')],
      },
    ],
    probes: [{ kind: 'duplicate', query: 'where does the user live', expect: ['austin'] }],
  },
  {
    id: 'chat-gf-roommate',
    style: 'chat',
    covers: ['third-person'],
    sessions: [
      {
        at: '2026-05-28T19:00:00Z',
        turns: [
          u('my gf is vegetarian so we cook veggie at home mostly'),
          u('my roommate works at google and never shuts up about it lol'),
          a('Ha! Want some vegetarian recipes?'),
          u('sure. oh im a nurse so something i can prep on sunday for night shifts'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'what is the user job', expect: ['nurse'] }],
    forbidden: [
      { class: 'third-person', pattern: 'user (is|eats)[^.]*vegetarian' },
      { class: 'third-person', pattern: 'user works (at|for) google' },
    ],
  },
  {
    id: 'chat-running-flip',
    style: 'chat',
    covers: ['change'],
    sessions: [
      {
        at: '2025-09-20T07:00:00Z',
        turns: [u('i hate running. treadmill = torture device'), a('Plenty of other ways to stay fit!')],
      },
      {
        at: '2026-04-18T11:00:00Z',
        turns: [
          u('ok plot twist, i actually love running now?? did my first 10k this morning'),
          a('That is great!'),
          u('lol who am i'),
        ],
      },
    ],
    probes: [
      {
        kind: 'change',
        query: 'does the user like running',
        expect: ['running', '\\blov|enjoy|\\blikes?\\b'],
        stale: ['hate'],
      },
    ],
  },
  {
    id: 'chat-pasted-bio',
    style: 'chat',
    covers: ['tool', 'change'],
    sessions: [
      {
        at: '2026-02-10T09:00:00Z',
        turns: [u('i work at Brightwave as a designer'), a('Nice!')],
      },
      {
        at: '2026-08-11T09:00:00Z',
        turns: [
          paste('LinkedIn (auto-imported): Senior Designer at Brightwave. Lives in Cape Town. Loves kitesurfing.'),
          u('thats my old linkedin lol. i left brightwave in july, freelance now'),
          a('Freelance, noted.'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'who does the user work for', expect: ['freelanc'], stale: ['brightwave'] }],
    forbidden: [{ class: 'tool', pattern: 'cape town|kitesurf' }],
  },
];
