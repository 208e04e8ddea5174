import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factPriority, mayReplaceFact, mergeFacts } from '../src/domain/facts.js';
import { canonicalJson, jsonEqual } from '../src/domain/json.js';
import { FACT_SOURCES, type Fact, type FactSource, type JsonValue } from '../src/types-structured.js';

const source = fc.constantFrom<FactSource>(...FACT_SOURCES);
const fact = (key: string, topic: string | null, value: JsonValue, src: FactSource = 'user'): Fact => ({
  user: 'u',
  topic,
  key,
  value,
  source: src,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('fact rules', () => {
  it('orders sources user > ai_inferred > mcp > other', () => {
    expect(FACT_SOURCES.map(factPriority)).toEqual([3, 2, 1, 0]);
    expect(mayReplaceFact('user', 'ai_inferred')).toBe(false);
    expect(mayReplaceFact('mcp', 'ai_inferred')).toBe(true);
    expect(mayReplaceFact('other', 'other')).toBe(true);
  });

  it('replacement is a total preorder: the winner of any write sequence has the highest priority written', () => {
    fc.assert(
      fc.property(fc.array(source, { minLength: 1, maxLength: 30 }), (writes) => {
        let stored: FactSource | null = null;
        for (const w of writes) if (stored === null || mayReplaceFact(stored, w)) stored = w;
        const best = Math.max(...writes.map(factPriority));
        // The winner is the LAST write among those of the best priority.
        const lastBest = [...writes].reverse().find((w) => factPriority(w) === best);
        return stored === lastBest;
      }),
    );
  });

  it('merges global and topic facts, the topic fact winning, other topics ignored', () => {
    const rows = [
      fact('b', null, 1),
      fact('a', null, 2),
      fact('a', 't', 3),
      fact('c', 't', 4),
      fact('a', 'x', 5),
      fact('d', 'x', 6),
    ];
    expect(mergeFacts(rows).map((f) => [f.key, f.value])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(mergeFacts(rows, null)).toEqual(mergeFacts(rows));
    expect(mergeFacts(rows, 't').map((f) => [f.key, f.value])).toEqual([
      ['a', 3],
      ['b', 1],
      ['c', 4],
    ]);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            key: fc.constantFrom('a', 'b', 'c', 'd'),
            topic: fc.constantFrom(null, 't', 'x'),
            value: fc.integer(),
          }),
          { maxLength: 20 },
        ),
        (raw) => {
          // One row per (key, topic), as a store holds them.
          const unique = [...new Map(raw.map((r) => [`${r.key}|${r.topic}`, fact(r.key, r.topic, r.value)])).values()];
          const merged = mergeFacts(unique, 't');
          return merged.every((m) => {
            const topical = unique.find((u) => u.key === m.key && u.topic === 't');
            return topical ? m === topical : m.topic === null;
          });
        },
      ),
    );
  });

  it('compares JSON values regardless of key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2, d: null }] }, { b: [1, { d: null, c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(canonicalJson({ z: 'é', a: true })).toBe('{"a":true,"z":"é"}');
    fc.assert(
      fc.property(fc.jsonValue(), (v) => jsonEqual(v as JsonValue, JSON.parse(JSON.stringify(v)) as JsonValue)),
    );
  });
});
