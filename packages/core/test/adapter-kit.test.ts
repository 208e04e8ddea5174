import { describe, expect, it } from 'vitest';
import { clampSimilarity, inOrder, parseTags } from '../src/adapter.js';

describe('adapter kit: clampSimilarity', () => {
  it('keeps values inside [-1, 1] and clamps the float32 overshoot at both ends', () => {
    expect(clampSimilarity(0.25)).toBe(0.25);
    expect(clampSimilarity(1.0000001)).toBe(1);
    expect(clampSimilarity(-1.0000001)).toBe(-1);
  });

  it('scores what is not a finite number (a zero vector) as 0', () => {
    expect(clampSimilarity(Number.NaN)).toBe(0);
    expect(clampSimilarity(Number.POSITIVE_INFINITY)).toBe(0);
    expect(clampSimilarity(Number.NEGATIVE_INFINITY)).toBe(0);
  });
});

describe('adapter kit: inOrder', () => {
  const rows = [
    { id: 'b', n: 2 },
    { id: 'a', n: 1 },
  ];

  it('returns rows in the order of the ids, repeats kept, unknown ids skipped', () => {
    expect(inOrder(rows, ['a', 'x', 'b', 'a']).map((r) => r.n)).toEqual([1, 2, 1]);
  });

  it('returns nothing for no ids', () => {
    expect(inOrder(rows, [])).toEqual([]);
  });
});

describe('adapter kit: parseTags', () => {
  it('reads a JSON array of strings', () => {
    expect(parseTags('["release","billing"]')).toEqual(['release', 'billing']);
  });

  it('drops entries that are not strings', () => {
    expect(parseTags('["a",1,null,{"b":2},"c"]')).toEqual(['a', 'c']);
  });

  it('gives no tags for broken JSON or a value that is not an array', () => {
    expect(parseTags('not json')).toEqual([]);
    expect(parseTags('{"a":1}')).toEqual([]);
    expect(parseTags('"tag"')).toEqual([]);
  });
});
