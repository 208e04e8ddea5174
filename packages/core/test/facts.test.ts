import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkFactKey,
  FACT_KEY_PATTERN,
  factKeyProblem,
  factKeySegment,
  factKeyWords,
  factPriority,
  MAX_FACT_SEGMENT,
  mayReplaceFact,
  mergeFacts,
} from '../src/domain/facts.js';
import { canonicalJson, jsonEqual } from '../src/domain/json.js';
import { MemError } from '../src/errors.js';
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

describe('the key grammar of extracted facts', () => {
  it('accepts three lower-case kebab segments', () => {
    for (const key of ['tool.deploy-tool.success-usage', 'tag.deploy.success-ratio', 'environment.s3.bucket-layout']) {
      expect(factKeyProblem(key)).toBeNull();
      expect(checkFactKey(key)).toBe(key);
    }
  });

  it.each([
    ['tool.deploy_tool.success-usage', /not <kind>\.<subject>\.<aspect>/],
    ['Tool.deploy.usage', /lower-case kebab/],
    ['tool.deploy', /not <kind>/],
    ['tool.deploy.usage.extra', /not <kind>/],
    ['tool..usage', /not <kind>/],
    ['tool.-deploy.usage', /not <kind>/],
    [`tool.${'x'.repeat(MAX_FACT_SEGMENT + 1)}.usage`, /over 60 characters/],
    [undefined, /missing/],
    [7, /a number, not a string/],
    [null, /a null, not a string/],
  ])('refuses %s with INVALID_INPUT saying why and showing a good key', (key, reason) => {
    expect(factKeyProblem(key)).toMatch(reason);
    let error: unknown;
    try {
      checkFactKey(key);
    } catch (e) {
      error = e;
    }
    expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).toContain('tool.deploy-tool.success-usage');
  });

  it('turns free names into words and one segment in the grammar', () => {
    expect(factKeyWords('Deploy_Tool v2')).toEqual(['deploy', 'tool', 'v2']);
    expect(factKeyWords('Café.Thé')).toEqual(['cafe', 'the']);
    expect(factKeySegment('deploy_tool')).toBe('deploy-tool');
    expect(factKeySegment('kubectl.rollout')).toBe('kubectl-rollout');
    expect(factKeySegment('GitHubCLI')).toBe('git-hub-cli');
    expect(factKeySegment('日本')).toBe('');
    expect(factKeySegment('---')).toBe('');
    const long = factKeySegment(Array.from({ length: 30 }, (_, i) => `word${i}`).join(' '));
    expect(long.length).toBeLessThanOrEqual(MAX_FACT_SEGMENT);
    expect(long).toMatch(/^word0-word1-.*[a-z0-9]$/);
    expect(factKeySegment('x'.repeat(80))).toBe('x'.repeat(MAX_FACT_SEGMENT));
  });

  it('every non-empty segment makes a key in the grammar', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (name) => {
        const segment = factKeySegment(name);
        if (segment !== '') expect(FACT_KEY_PATTERN.test(`tool.${segment}.success-usage`)).toBe(true);
      }),
    );
  });
});
