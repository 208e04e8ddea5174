import { describe, expect, it } from 'vitest';
import { nearTimeCue, timeCue } from '../src/domain/time-cue.js';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack } from '../src/index.js';

const at = (iso: string) => Date.parse(iso);

describe('time cues in a query', () => {
  it('reads the periods people name', () => {
    expect(timeCue('When did Melanie go camping in June?')).toEqual({ month: 5 });
    expect(timeCue('What did they paint in July 2023?')).toEqual({ month: 6, year: 2023 });
    expect(timeCue('What painting was shown on October 13, 2023?')).toEqual({ month: 9, day: 13, year: 2023 });
    expect(timeCue('What did Gina find on 1 February, 2023?')).toEqual({ month: 1, day: 1, year: 2023 });
    expect(timeCue('How many times did she go to the beach in 2023?')).toEqual({ year: 2023 });
    expect(timeCue('What happened in May?')).toEqual({ month: 4 });
    expect(timeCue('on 3rd March')).toEqual({ month: 2, day: 3 });
  });

  it('names no time where there is none ("may" as a verb, plain numbers)', () => {
    expect(timeCue('What may I store here?')).toBeNull();
    expect(timeCue('May I ask about the deploy?')).toBeNull();
    expect(timeCue('Why does the pool hold 20 connections?')).toBeNull();
    expect(timeCue('')).toBeNull();
  });

  it('matches memories said in the period or up to the given days after it', () => {
    const june = { month: 5 };
    expect(nearTimeCue(june, at('2023-06-15T10:00:00Z'), 35)).toBe(true);
    expect(nearTimeCue(june, at('2023-07-20T10:00:00Z'), 35)).toBe(true); // told afterwards
    expect(nearTimeCue(june, at('2023-08-20T10:00:00Z'), 35)).toBe(false);
    expect(nearTimeCue(june, at('2023-05-31T23:59:00Z'), 35)).toBe(false);
    expect(nearTimeCue({ month: 11 }, at('2024-01-10T00:00:00Z'), 35)).toBe(true); // December of the year before
    const day = { year: 2023, month: 9, day: 13 };
    expect(nearTimeCue(day, at('2023-10-13T18:00:00Z'), 0)).toBe(true);
    expect(nearTimeCue(day, at('2023-10-14T00:00:00Z'), 0)).toBe(false);
    expect(nearTimeCue({ year: 2022 }, at('2023-01-20T00:00:00Z'), 35)).toBe(true);
    expect(nearTimeCue({ year: 2022 }, at('2023-03-01T00:00:00Z'), 35)).toBe(false);
    expect(nearTimeCue(june, Number.NaN, 35)).toBe(false);
  });

  it('search lifts the memory of the named month over equal matches; weight 0 turns the cue off', async () => {
    const me = { space: 'home', agentId: 'diary', role: 'worker' } as const;
    const relevanceByMonth = async (weight: number) => {
      const { knowledge } = createStack({
        knowledge: createInMemoryKnowledgeStore(),
        embedder: createHashingEmbedder(),
        knowledgeOptions: { timeCue: { weight, afterDays: 35 }, neighbours: { weight: 0, radius: 1, depth: 10 } },
      });
      await knowledge.import(me, { content: 'We went camping by the lake.', createdAt: '2023-03-10T12:00:00.000Z' });
      await knowledge.import(me, { content: 'We went camping by the hills.', createdAt: '2023-06-18T12:00:00.000Z' });
      const results = await knowledge.search(me, { query: 'where did we go camping in June?' });
      const of = (word: string) => results.find((r) => r.content.includes(word))!.relevance;
      return { first: results[0]!.content, june: of('hills'), march: of('lake') };
    };
    const on = await relevanceByMonth(1);
    expect(on.first).toBe('We went camping by the hills.');
    expect(on.june).toBeGreaterThan(1.6 * on.march);
    const off = await relevanceByMonth(0);
    expect(off.june).toBeLessThan(1.2 * off.march);
    expect(off.march).toBeLessThan(1.2 * off.june);
  });
});
