/** Formation bench dialogues, prose style (part 2 of 3). See src/formation-data.ts for what the fields mean. */
import { ANY, a, type Dialogue, day, paste, u } from './formation-data.js';

export const FORMATION_PROSE_2: Dialogue[] = [
  {
    id: 'prose-small-talk',
    style: 'prose',
    covers: ['smalltalk'],
    sessions: [
      {
        at: '2026-02-25T18:10:00Z',
        turns: [
          u(
            'What a day. The traffic on the ring road was unbelievable this morning, I sat there for forty minutes behind a lorry, and then the coffee machine at work was broken, so I am running on fumes.',
          ),
          a('That sounds exhausting. Anything I can take off your plate?'),
          u(
            'Not really, I just wanted to moan for a minute. I had a sandwich at my desk and it was fine, nothing special. Is it going to rain this weekend, do you think?',
          ),
          a('I cannot check live weather, but a forecast app will tell you.'),
          u('Fair enough. Thanks for listening anyway, I feel a bit better.'),
        ],
      },
    ],
    probes: [],
    forbidden: [{ class: 'smalltalk', pattern: ANY }],
  },
  {
    id: 'prose-shared-password',
    style: 'prose',
    covers: ['secret', 'multi-fact'],
    sessions: [
      {
        at: '2026-05-12T11:00:00Z',
        turns: [
          u(
            "I'm the office manager at Halden Architects and I am setting up the new accounting tool; the password for the shared finance account is Maple!Harbor2291, and the old AWS key we used for backups was AKIATFGSLRWWGTYUFK0X, in case you need to check whether anything still uses it.",
          ),
          a('Please do not send credentials here; store them in your password manager and rotate that key.'),
          u('Right, of course. Just tell me which steps to follow to connect the bank feed, then.'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'what is the user job', expect: ['office manager'] }],
    secrets: ['Maple!Harbor2291', 'AKIATFGSLRWWGTYUFK0X'],
  },
  {
    id: 'prose-pasted-article',
    style: 'prose',
    covers: ['tool'],
    sessions: [
      {
        at: '2026-07-07T16:00:00Z',
        turns: [
          paste(
            'Reader profile (from the newsletter CMS): "Our reader lives in Helsinki, works as a dentist, is allergic to shellfish and prefers to be contacted by phone."',
          ),
          u(
            'That profile the newsletter people have on me is complete nonsense, I have no idea where they got it. For what it is worth, I live in Tampere and I teach maths at a secondary school.',
          ),
          a('Thanks for clarifying.'),
        ],
      },
    ],
    probes: [
      { kind: 'fact', query: 'where does the user live', expect: ['tampere'] },
      { kind: 'fact', query: 'what is the user job', expect: ['teach|teacher'] },
    ],
    forbidden: [{ class: 'tool', pattern: 'helsinki|dentist|shellfish|by phone' }],
  },
  {
    id: 'prose-third-person-colleagues',
    style: 'prose',
    covers: ['third-person'],
    sessions: [
      {
        at: '2026-03-18T13:00:00Z',
        turns: [
          u(
            'My colleague Priya has just been promoted to head of research and she is moving to Singapore to set up the new lab, which means I inherit her project. My manager, Colin, is a vegan and a marathon runner, and he will expect weekly reports.',
          ),
          a('Congratulations to Priya. Shall I draft a report template?'),
          u('Yes please. I am a data engineer, so keep it technical.'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'what is the user job', expect: ['data engineer|engineer'] }],
    forbidden: [
      { class: 'third-person', pattern: 'user (is|was) (promoted|moving|relocating)|user (moved|moves) to singapore' },
      { class: 'third-person', pattern: 'user (is|eats)[^.]*vegan|user (is|runs)[^.]*marathon' },
      { class: 'third-person', pattern: 'user (is|will be) (the )?head of research' },
    ],
  },
  {
    id: 'prose-hypotheticals',
    style: 'prose',
    covers: ['hypothetical', 'multi-fact'],
    sessions: [
      {
        at: '2026-08-15T20:00:00Z',
        turns: [
          u(
            'Sometimes I wonder what life would be like if we moved to the Algarve; were I to retire early I would buy a little boat and fish every morning. I have even thought about training as a pilot, though that is never going to happen.',
          ),
          a('Those are lovely daydreams.'),
          u(
            'Back to reality, though: I have a daughter, Inês, who is seven, and she needs a birthday party idea for next month.',
          ),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'user children', expect: ['daughter|in[eê]s'] }],
    forbidden: [
      { class: 'hypothetical', pattern: 'algarve' },
      { class: 'hypothetical', pattern: '\\bboat|\\bfish' },
      { class: 'hypothetical', pattern: 'pilot' },
    ],
  },
  {
    id: 'prose-horror-films',
    style: 'prose',
    covers: ['change'],
    sessions: [
      {
        at: '2025-10-30T21:00:00Z',
        turns: [
          u(
            "For the film night please pick something light. I'm not a fan of horror films at all, they give me nightmares for a week, so nothing with ghosts or basements.",
          ),
          a('A comedy, then.'),
        ],
      },
      {
        at: '2026-10-29T21:00:00Z',
        turns: [
          u(
            'Funny thing, a year on: after my partner made me sit through a whole season of old classics I find I really enjoy horror films these days, the slower and creepier the better. So for Halloween, go wild.',
          ),
          a('Classic horror for Halloween it is.'),
        ],
      },
    ],
    probes: [
      {
        kind: 'change',
        query: 'does the user like horror films',
        expect: ['horror', 'enjoy|\\blov|\\blikes?\\b'],
        stale: ['not a fan|dislike|hate'],
      },
    ],
  },
  {
    id: 'prose-edinburgh-glasgow-back',
    style: 'prose',
    covers: ['change'],
    sessions: [
      {
        at: '2024-11-04T10:00:00Z',
        turns: [
          u(
            "I live in Edinburgh, in Leith, and I'm trying to find a dentist who takes NHS patients, which seems to be impossible at the moment.",
          ),
          a('I can help you look for NHS dentists in Leith.'),
        ],
      },
      {
        at: '2025-06-09T10:00:00Z',
        turns: [
          u(
            "The dentist search is moot now, we relocated to Glasgow in May for my partner's job, so I will need a new GP as well.",
          ),
          a('New GP in Glasgow, noted.'),
        ],
      },
      {
        at: '2026-05-11T10:00:00Z',
        turns: [
          u(
            'And we are back in Edinburgh! Glasgow never felt like home, so we moved back to Edinburgh last month and I am, once again, hunting for a dentist. You could not make it up.',
          ),
          a('Welcome back to Edinburgh.'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'where does the user live', expect: ['edinburgh'], stale: ['glasgow'] }],
    asOf: [
      { query: 'where does the user live', asOf: '2025-09-01', expect: ['glasgow'], not: ['edinburgh'] },
      { query: 'where does the user live', asOf: '2025-02-01', expect: ['edinburgh'] },
    ],
  },
  {
    id: 'prose-nurse-manager',
    style: 'prose',
    covers: ['change'],
    sessions: [
      {
        at: '2025-03-03T19:00:00Z',
        turns: [
          u(
            "I'm a staff nurse in the emergency department at Royal Derby and I want to study for a leadership qualification in my spare time, if I ever get any.",
          ),
          a('Let us find part-time leadership courses.'),
        ],
      },
      {
        at: '2026-04-20T19:00:00Z',
        turns: [
          u(
            "The course paid off: I was made ward manager in April, so I'm no longer on the floor every shift. I'm mostly doing rotas and budgets now, which I never thought I would enjoy.",
          ),
          a('Congratulations on becoming ward manager!'),
        ],
      },
    ],
    probes: [
      { kind: 'change', query: 'what is the user job', expect: ['ward manager|manager'], stale: ['staff nurse'] },
    ],
  },
  {
    id: 'prose-meat-again',
    style: 'prose',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-05-05T18:00:00Z',
        turns: [
          u(
            "I'm pescatarian, so fish and seafood are fine but please no meat when you suggest restaurants for the team offsite.",
          ),
          a('Pescatarian-friendly places only.'),
        ],
      },
      {
        at: '2026-01-06T18:00:00Z',
        turns: [
          u(
            'New year, new rules: I am not pescatarian anymore, I started eating meat again over Christmas and honestly I feel a lot better for it, so no need to filter restaurants for me.',
          ),
          a('No more filtering, then.'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'user diet', stale: ['pescatarian'] }],
  },
  {
    id: 'prose-surgery-tomorrow',
    style: 'prose',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-09-03T17:00:00Z',
        turns: [
          u(
            "I'm having keyhole surgery on my left knee tomorrow morning, and I will be on crutches for a couple of weeks afterwards, so please move anything that involves stairs or driving.",
          ),
          a('I will reschedule those.'),
        ],
      },
    ],
    probes: [{ kind: 'date', query: 'knee surgery', expect: ['surgery', day('2026-09-04')] }],
  },
  {
    id: 'prose-teaching-from-september',
    style: 'prose',
    covers: ['relative-date', 'change'],
    sessions: [
      {
        at: '2026-03-14T15:00:00Z',
        turns: [
          u(
            'I work as a translator, mostly legal documents from German into English, which pays the bills but is terribly lonely.',
          ),
          a('Translation can be isolating.'),
        ],
      },
      {
        at: '2026-07-21T15:00:00Z',
        turns: [
          u(
            "I accepted the offer! From the first of September I will be teaching German at a language school in Bath, three days a week, and I'll drop the legal translation entirely.",
          ),
          a('Congratulations!'),
        ],
      },
    ],
    probes: [
      {
        kind: 'change',
        query: 'what is the user job',
        expect: ['teach|teacher'],
        stale: ['translat'],
      },
    ],
    asOf: [
      { query: 'what is the user job', asOf: '2026-08-01', expect: ['translat'] },
      { query: 'what is the user job', asOf: '2026-09-15', expect: ['teach'] },
    ],
  },
];
