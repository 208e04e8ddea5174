import { describe, expect, it } from 'vitest';
import { chunkId, newId } from '../src/domain/ids.js';

describe('ids', () => {
  it('ids made in one millisecond increase in the order they were made', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const ids = Array.from({ length: 500 }, () => newId(now));
    expect(new Set(ids).size).toBe(500);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('ids sort by their millisecond first, and chunk ids follow their document id', () => {
    const early = newId(new Date('2026-03-01T12:00:00.000Z'));
    const late = newId(new Date('2026-03-01T12:00:00.001Z'));
    const earlier = newId(new Date('2026-03-01T11:59:59.999Z'));
    expect(early < late).toBe(true);
    expect(earlier < early).toBe(true);
    expect(chunkId(early, 0)).toBe(early);
    expect(chunkId(early, 2) > early).toBe(true);
  });
});
