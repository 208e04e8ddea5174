import { describe, expect, it } from 'vitest';
import { memoByKey } from '../src/adapter.js';

describe('memoByKey', () => {
  it('computes once per key object, apart for each key, and keeps a falsy answer too', () => {
    const calls: object[] = [];
    const size = memoByKey((list: number[]) => {
      calls.push(list);
      return list.length === 0 ? undefined : list.length;
    });
    const a = [1, 2];
    const b = [1, 2];
    const empty: number[] = [];
    expect(size(a)).toBe(2);
    expect(size(a)).toBe(2);
    expect(size(b)).toBe(2);
    expect(size(empty)).toBeUndefined();
    expect(size(empty)).toBeUndefined();
    expect(calls).toEqual([a, b, empty]);
    expect(calls[0]).toBe(a);
    expect(calls[1]).toBe(b);
  });
});
