/**
 * Formation bench dialogues, prose style (part 1 of 3): long, rambling turns in full sentences, several facts and
 * asides in one turn, the way someone writes at a keyboard. See src/formation-data.ts for what the fields mean.
 */
import { a, type Dialogue, day, u } from './formation-data.js';

export const FORMATION_PROSE_1: Dialogue[] = [
  {
    id: 'prose-hotel-room',
    style: 'prose',
    covers: ['change'],
    sessions: [
      {
        at: '2025-10-14T09:00:00Z',
        turns: [
          u(
            'Could you help me sort out the hotel for the Frankfurt trade fair? The usual drill: I always ask for a quiet room far away from the lift, because the ding every few minutes keeps me up all night, and ideally something on a high floor.',
          ),
          a('Of course. I will ask for a quiet, high-floor room away from the lifts.'),
        ],
      },
      {
        at: '2026-03-02T10:15:00Z',
        turns: [
          u(
            "Something has changed since my hip operation in January, so please take note: I'd rather have a room close to the lift now, even if it is a bit noisier. Walking down those endless corridors with a suitcase is just not worth it any more.",
          ),
          a('Understood — rooms near the lift from now on.'),
          u('Thank you, and the floor does not matter any more either.'),
        ],
      },
    ],
    probes: [
      {
        kind: 'change',
        query: 'hotel room preference',
        expect: ['(close|near|next)[^.]*lift'],
        stale: ['(far|away)[^.]*lift'],
      },
    ],
  },
  {
    id: 'prose-utrecht-rotterdam',
    style: 'prose',
    covers: ['change', 'relative-date'],
    sessions: [
      {
        at: '2025-05-18T20:00:00Z',
        turns: [
          u(
            'We have lived in Utrecht for about six years now, in a narrow old house by the canal that is freezing in winter, and I am looking for a plumber who will not charge us a fortune for the radiators.',
          ),
          a('I can look for plumbers in Utrecht with good reviews.'),
        ],
      },
      {
        at: '2026-09-22T19:40:00Z',
        turns: [
          u(
            "Big news on our side: after months of viewings we finally moved to Rotterdam at the start of the month. The flat is modern, warm, and the kids can walk to school, so the radiators are someone else's problem now.",
          ),
          a('Congratulations on the move to Rotterdam!'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'where does the user live', expect: ['rotterdam'], stale: ['utrecht'] }],
    asOf: [
      { query: 'where does the user live', asOf: '2026-06-01', expect: ['utrecht'], not: ['rotterdam'] },
      { query: 'where does the user live', asOf: '2026-09-10', expect: ['rotterdam'] },
    ],
  },
  {
    id: 'prose-pharmacist-lecturer',
    style: 'prose',
    covers: ['change', 'multi-fact'],
    sessions: [
      {
        at: '2025-04-07T18:00:00Z',
        turns: [
          u(
            "I'm a pharmacist at St Columba's Hospital, mostly on the oncology ward, and the shift pattern is wrecking my sleep, so I'd like some advice on how to wind down after a late finish.",
          ),
          a('Happy to help with a wind-down routine.'),
        ],
      },
      {
        at: '2026-01-29T12:00:00Z',
        turns: [
          u(
            'A small update on the work front, since you helped me so much with the sleep thing: I handed in my notice at the hospital in the autumn and I am now a lecturer in pharmacology at the university. Regular hours at last, and far less standing.',
          ),
          a('That sounds like a wonderful change.'),
        ],
      },
    ],
    probes: [
      { kind: 'change', query: 'what is the user job', expect: ['lecturer'], stale: ['pharmacist'] },
      { kind: 'change', query: 'where does the user work', expect: ['universit'], stale: ['columba'] },
    ],
  },
  {
    id: 'prose-vegetarian-vegan',
    style: 'prose',
    covers: ['change', 'relative-date'],
    sessions: [
      {
        at: '2025-11-05T17:30:00Z',
        turns: [
          u(
            'For the dinner party menu, keep in mind that I am vegetarian and have been since university, although I still eat cheese and eggs, so a frittata would be fine.',
          ),
          a('A vegetarian menu with a frittata it is.'),
        ],
      },
      {
        at: '2026-02-18T17:00:00Z',
        turns: [
          u(
            "I need to amend the recipes you keep suggesting: I've gone fully vegan since January, so no cheese, no eggs, no honey. It was a documentary that did it, I am afraid, and I do not think I am going back.",
          ),
          a('Vegan from now on, understood.'),
        ],
      },
    ],
    probes: [{ kind: 'change', query: 'user diet', expect: ['vegan'], stale: ['vegetarian'] }],
    asOf: [
      { query: 'user diet', asOf: '2025-12-01', expect: ['vegetarian'] },
      { query: 'user diet', asOf: '2026-01-20', expect: ['vegan'] },
    ],
  },
  {
    id: 'prose-interview-tuesday',
    style: 'prose',
    covers: ['relative-date', 'third-person'],
    sessions: [
      {
        at: '2026-01-16T21:00:00Z',
        turns: [
          u(
            'It has been a week. My mother-in-law arrives on Sunday and stays for a fortnight, which would be fine on its own, but I also have a job interview next Tuesday at ten in the morning with a logistics firm in Leipzig, and I have not prepared at all.',
          ),
          a('Let us prepare for the interview. What is the role?'),
          u(
            'Operations manager. My mother-in-law, for the record, is a retired judge, so the house will be very quiet.',
          ),
        ],
      },
    ],
    probes: [{ kind: 'date', query: 'job interview', expect: ['interview', day('2026-01-20')] }],
    forbidden: [{ class: 'third-person', pattern: 'user (is|was) a (retired )?judge' }],
  },
  {
    id: 'prose-half-marathon',
    style: 'prose',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-03-29T08:00:00Z',
        turns: [
          u(
            'I am running the Hackney half marathon in two weeks, my first one ever, and my training plan fell apart when I caught the flu, so I would like a gentle taper that will at least get me round without walking.',
          ),
          a('Let us build a two-week taper.'),
        ],
      },
    ],
    probes: [{ kind: 'date', query: 'half marathon', expect: ['marathon', day('2026-04-12')] }],
  },
  {
    id: 'prose-home-since-march',
    style: 'prose',
    covers: ['relative-date'],
    sessions: [
      {
        at: '2026-06-30T14:00:00Z',
        turns: [
          u(
            "My office closed its city branch, so I've been working from home since March, and I would really like some ideas to make the spare room less depressing — it faces north and there is a radiator exactly where the desk should go.",
          ),
          a('A few ideas for a north-facing home office coming up.'),
        ],
      },
    ],
    probes: [{ kind: 'date', query: 'where does the user work from', expect: ['home|remote'] }],
    asOf: [
      { query: 'does the user work from home', asOf: '2026-04-15', expect: ['home|remote'] },
      { query: 'does the user work from home', asOf: '2026-01-15', not: ['home|remote'] },
    ],
  },
  {
    id: 'prose-married-last-year',
    style: 'prose',
    covers: ['relative-date', 'multi-fact'],
    sessions: [
      {
        at: '2026-02-03T19:00:00Z',
        turns: [
          u(
            'We got married last year in a tiny ceremony in Galway, just fourteen guests, and my husband Tomás wants to do something for our first anniversary in August. I was thinking of a cottage somewhere on the coast.',
          ),
          a('A coastal cottage sounds perfect for an anniversary.'),
        ],
      },
    ],
    probes: [
      { kind: 'fact', query: 'user relationship', expect: ['married'] },
      { kind: 'fact', query: 'user husband name', expect: ['tom[aá]s'] },
    ],
    asOf: [{ query: 'is the user married', asOf: '2025-10-01', expect: ['married'] }],
  },
  {
    id: 'prose-no-weekends',
    style: 'prose',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-06-21T09:30:00Z',
        turns: [
          u(
            'I work every other weekend at the garden centre on top of my weekday job, so Saturdays are usually out for me; could you move the book club suggestion to a Sunday evening?',
          ),
          a('Sunday evening for book club, then.'),
        ],
      },
      {
        at: '2025-11-08T10:00:00Z',
        turns: [
          u(
            'Good news for the book club: I no longer work weekends. The garden centre cut back on staff for the winter and, honestly, I was relieved, so Saturdays are open again.',
          ),
          a('Great — Saturdays work again.'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'does the user work weekends', stale: ['weekend|garden centre'] }],
  },
  {
    id: 'prose-keto-anymore',
    style: 'prose',
    covers: ['retraction'],
    sessions: [
      {
        at: '2025-09-01T12:00:00Z',
        turns: [
          u(
            "I'm on a strict keto diet at the moment, under twenty grams of carbs a day, so when you plan the team lunch please leave me out of the pasta place.",
          ),
          a('Noted, I will find somewhere with keto options.'),
        ],
      },
      {
        at: '2026-01-12T12:00:00Z',
        turns: [
          u(
            "You can stop filtering the menus for me — I'm not doing keto anymore. My cholesterol went the wrong way and my GP told me to stop, so bread is back on the table, quite literally.",
          ),
          a('Understood, no more keto filter.'),
        ],
      },
    ],
    probes: [{ kind: 'retraction', query: 'user diet keto', stale: ['keto'] }],
  },
  {
    id: 'prose-quit-gym',
    style: 'prose',
    covers: ['retraction', 'multi-fact'],
    sessions: [
      {
        at: '2025-10-10T06:30:00Z',
        turns: [
          u(
            'I go to PureGym on Mill Road four mornings a week before work, which is why I am always asking you for breakfasts I can eat on the bus.',
          ),
          a('Portable breakfasts, coming up.'),
        ],
      },
      {
        at: '2026-03-03T07:00:00Z',
        turns: [
          u(
            "Quick housekeeping: I quit the gym last month, cancelled the membership and everything. I've been doing yoga at home with videos instead, which suits my back much better, so breakfasts can be slower now.",
          ),
          a('Yoga at home, noted.'),
        ],
      },
    ],
    probes: [
      { kind: 'retraction', query: 'does the user go to the gym', stale: ['gym'] },
      { kind: 'fact', query: 'user exercise', expect: ['yoga'] },
    ],
  },
  {
    id: 'prose-night-owl-three-ways',
    style: 'prose',
    covers: ['duplicate'],
    sessions: [
      {
        at: '2026-04-01T23:30:00Z',
        turns: [
          u(
            "Please do not book me anything before ten in the morning; I'm a night owl and I do my best work after midnight.",
          ),
          a('Nothing before ten, got it.'),
        ],
      },
      {
        at: '2026-04-15T23:50:00Z',
        turns: [
          u(
            "As you know I am much more of an evening person than a morning one, so the nine o'clock stand-up really is torture.",
          ),
          a('Shall I suggest moving it?'),
        ],
      },
      {
        at: '2026-05-02T00:40:00Z',
        turns: [
          u("It's past midnight and I am wide awake as usual, I simply function better late at night than early."),
          a('Late nights it is.'),
        ],
      },
    ],
    probes: [{ kind: 'duplicate', query: 'is the user a morning or night person', expect: ['night|evening|late'] }],
  },
];
