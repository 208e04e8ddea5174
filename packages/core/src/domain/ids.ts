import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * A new time-sortable id: 10 characters of milliseconds then 16 random ones, lower case (valid in keys). Ids made in
 * one millisecond by one process increase (the random part of the previous one plus one), so the (createdAt, id)
 * order of memories stored together is the order they were stored in — what the neighbouring-turn rule reads.
 */
export function newId(now: Date = new Date()): string {
  let t = now.getTime();
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const ms = now.getTime();
  let digits: number[] | null = ms === lastTime ? increment(lastRandom) : null;
  if (digits === null) {
    const bytes = randomBytes(16);
    // The first digit keeps room to count up (below 16 of 32), so ids of one millisecond never wrap.
    digits = [...bytes].map((b, i) => (i === 0 ? b % 16 : b % 32));
  }
  lastTime = ms;
  lastRandom = digits;
  return time + digits.map((d) => ALPHABET[d]).join('');
}

/** The base-32 number `digits` plus one, or null when it would overflow. */
function increment(digits: readonly number[]): number[] | null {
  const out = [...digits];
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]! < 31) {
      out[i] = out[i]! + 1;
      return out;
    }
    out[i] = 0;
  }
  return null;
}

/** Id of chunk `index` of document `docId`: the first chunk is the document id itself. */
export function chunkId(docId: string, index: number): string {
  return index === 0 ? docId : `${docId}-${index}`;
}

/** SHA-256 hex of a text. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
