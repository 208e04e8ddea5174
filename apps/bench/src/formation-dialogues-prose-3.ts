/** Formation bench dialogues, prose style (part 3 of 3). See src/formation-data.ts for what the fields mean. */
import { ANY, a, type Dialogue, tool, u } from './formation-data.js';

export const FORMATION_PROSE_3: Dialogue[] = [
  {
    id: 'prose-email-three-ways',
    style: 'prose',
    covers: ['duplicate'],
    sessions: [
      {
        at: '2026-01-19T09:00:00Z',
        turns: [
          u('When the suppliers want to reach me, I prefer email over phone calls; I can never take calls on site.'),
          a('Email first, noted.'),
        ],
      },
      {
        at: '2026-02-02T09:00:00Z',
        turns: [
          u(
            'Please tell the landlord to write to me rather than ring — as I mentioned, email is by far the best way to get hold of me.',
          ),
          a('I will ask him to email.'),
        ],
      },
      {
        at: '2026-02-23T09:00:00Z',
        turns: [
          u('Phone calls stress me out, honestly; I would much rather everybody just sent me an email.'),
          a('Understood.'),
        ],
      },
    ],
    probes: [{ kind: 'duplicate', query: 'how does the user like to be contacted', expect: ['e-?mail'] }],
  },
  {
    id: 'prose-architect-three-ways',
    style: 'prose',
    covers: ['duplicate', 'multi-fact'],
    sessions: [
      {
        at: '2025-09-15T08:00:00Z',
        turns: [
          u(
            "I'm an architect, mostly small residential extensions in and around Norwich, and I need a better way to track planning applications.",
          ),
          a('A simple tracker could help.'),
        ],
      },
      {
        at: '2025-10-20T08:00:00Z',
        turns: [
          u('Being an architect, I spend half my life arguing with planning officers about roof pitches.'),
          a('That sounds familiar to many architects.'),
        ],
      },
      {
        at: '2025-12-01T08:00:00Z',
        turns: [
          u('I work as an architect, as you know, so the Christmas slowdown is the only time I can catch up on admin.'),
          a('A good time for admin.'),
        ],
      },
    ],
    probes: [{ kind: 'duplicate', query: 'what is the user job', expect: ['architect'] }],
  },
  {
    id: 'prose-calendar-tool',
    style: 'prose',
    covers: ['tool'],
    sessions: [
      {
        at: '2026-06-08T08:30:00Z',
        turns: [
          u('Could you check my calendar for next week and tell me where the gaps are?'),
          tool(
            'calendar.list: [{"title":"Board meeting","location":"Singapore","attendee_note":"user is relocating to Singapore in Q3"},{"title":"Dentist","location":"Leeds"}]',
          ),
          a('You have a board meeting (Singapore, remote) and the dentist.'),
          tool('weather: Leeds, 14°C, showers. Note: user prefers Celsius and hates umbrellas.'),
          u("The board meeting is remote, I am not going anywhere. I'm based in Leeds and I'm staying here."),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'where does the user live', expect: ['leeds'] }],
    forbidden: [
      { class: 'tool', pattern: 'singapore' },
      { class: 'tool', pattern: 'celsius|umbrella' },
    ],
  },
  {
    id: 'prose-pasted-config',
    style: 'prose',
    covers: ['secret', 'tool'],
    sessions: [
      {
        at: '2026-04-27T14:00:00Z',
        turns: [
          u(
            'The payment page is failing again. This is what the config file says: STRIPE_SECRET=sk_live_ls4nzuN7wqRVITtwqDZRVE8mG9Ot and the webhook points at our staging box. I run a small online shop selling ceramics, so every hour this is down costs me money.',
          ),
          a('Please rotate that Stripe key now: it has been shared. Then let us look at the webhook.'),
          u('Done. My bank card PIN is 4471 by the way, do I need that for Stripe?'),
          a('No — never share your PIN with anyone, including me.'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'user business', expect: ['ceramic|shop'] }],
    secrets: ['sk_live_ls4nzuN7wqRVITtwqDZRVE8mG9Ot', '4471'],
  },
  {
    id: 'prose-long-intro',
    style: 'prose',
    covers: ['multi-fact'],
    sessions: [
      {
        at: '2026-03-09T10:00:00Z',
        turns: [
          u(
            "Let me introduce myself properly, since we will be working together a lot. My name is Oluwaseun, though most people call me Seun; I grew up in Ibadan but I have lived in Cardiff for the last decade. I work as a structural engineer at Arup, I have two cats called Pepper and Salt, and I'm allergic to penicillin, which matters if you ever book me a doctor.",
          ),
          a('Lovely to meet you, Seun.'),
        ],
      },
    ],
    probes: [
      { kind: 'fact', query: 'what is the user called', expect: ['seun'] },
      { kind: 'fact', query: 'where is the user from', expect: ['ibadan'] },
      { kind: 'fact', query: 'where does the user live', expect: ['cardiff'] },
      { kind: 'fact', query: 'what is the user job', expect: ['structural engineer|engineer'] },
      { kind: 'fact', query: 'who does the user work for', expect: ['arup'] },
      { kind: 'fact', query: 'user pets cats', expect: ['pepper'] },
      { kind: 'fact', query: 'user allergy', expect: ['penicillin'] },
    ],
  },
  {
    id: 'prose-sold-car',
    style: 'prose',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-08-08T12:00:00Z',
        turns: [
          u(
            "I drive a 2014 VW Golf, which is reliable but has no satnav, so I rely on you for directions — could you plan the route to my aunt's in Whitby?",
          ),
          a('Here is the route to Whitby.'),
        ],
      },
      {
        at: '2026-02-11T12:00:00Z',
        turns: [
          u(
            "I don't have the Golf anymore; I sold it in January because I hardly used it after moving closer to work. So trains and buses from now on, please, when you plan trips.",
          ),
          a('Public transport from now on.'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'what car does the user drive', stale: ['golf'] }],
  },
  {
    id: 'prose-android-iphone',
    style: 'prose',
    covers: ['change'],
    sessions: [
      {
        at: '2025-07-14T09:00:00Z',
        turns: [
          u(
            "I use an Android phone, a Pixel 7, so please don't send me any iPhone-only apps when you recommend things.",
          ),
          a('Android apps only.'),
        ],
      },
      {
        at: '2026-03-30T09:00:00Z',
        turns: [
          u(
            'My work now gives us iPhones, so I have switched to an iPhone and handed the Pixel down to my son; iOS suggestions are fine from now on.',
          ),
          a('iOS from now on.'),
        ],
      },
    ],
    probes: [
      { kind: 'change', query: 'what phone does the user use', expect: ['iphone|ios'], stale: ['android|pixel'] },
    ],
  },
  {
    id: 'prose-small-talk-2',
    style: 'prose',
    covers: ['smalltalk'],
    sessions: [
      {
        at: '2026-11-10T17:30:00Z',
        turns: [
          u(
            "I'm absolutely shattered tonight. The train was late again, the heating at the office broke, and I ate a sad supermarket salad standing up at the station.",
          ),
          a('That sounds like a rough day.'),
          u('Ha, it was. Oh well, tomorrow is another day. Is it supposed to snow this week, do you reckon?'),
          a('I cannot see a forecast, sorry.'),
          u('No worries. Goodnight!'),
        ],
      },
    ],
    probes: [],
    forbidden: [{ class: 'smalltalk', pattern: ANY }],
  },
  {
    id: 'prose-assistant-claims',
    style: 'prose',
    covers: ['third-person'],
    sessions: [
      {
        at: '2026-05-19T20:00:00Z',
        turns: [
          u('Can you recommend some poetry? Something short for a bad week.'),
          a('I love poetry myself, and I live for Mary Oliver. I am based in the cloud, so I read all day!'),
          u("Ha. I'm more of a crime novel person really, but I will give Mary Oliver a go."),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'what does the user like to read', expect: ['crime'] }],
    forbidden: [{ class: 'assistant', pattern: 'poetry|mary oliver|cloud' }],
  },
  {
    id: 'prose-fenwick-last-monday',
    style: 'prose',
    covers: ['relative-date', 'change'],
    sessions: [
      {
        at: '2025-06-02T18:00:00Z',
        turns: [
          u(
            "I work for Bellamy Foods as a buyer and I'm desperate to get out; the commute to Slough alone is killing me.",
          ),
          a('Let us work on your CV.'),
        ],
      },
      {
        at: '2026-11-05T18:00:00Z',
        turns: [
          u(
            'The CV work paid off in the end. I joined Fenwick & Daughters last Monday as their senior buyer, and the office is a fifteen-minute walk from my flat.',
          ),
          a('Congratulations on the new role!'),
        ],
      },
    ],
    probes: [
      {
        kind: 'change',
        query: 'who does the user work for',
        expect: ['fenwick'],
        stale: ['bellamy'],
      },
    ],
    asOf: [
      { query: 'who does the user work for', asOf: '2026-11-03', expect: ['fenwick'] },
      { query: 'who does the user work for', asOf: '2026-10-01', expect: ['bellamy'], not: ['fenwick'] },
    ],
  },
  {
    id: 'prose-vienna-until-june',
    style: 'prose',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-04-13T09:00:00Z',
        turns: [
          u(
            "I'm staying in Vienna until the end of June for a research fellowship, then I go back home to Graz, so anything you book for me before July should be in Vienna.",
          ),
          a('Vienna until the end of June, then Graz.'),
        ],
      },
    ],
    probes: [{ kind: 'fact', query: 'where is the user from home', expect: ['graz'] }],
    asOf: [{ query: 'where is the user staying', asOf: '2026-05-15', expect: ['vienna'] }],
  },
];
