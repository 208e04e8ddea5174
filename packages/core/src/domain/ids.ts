import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A new time-sortable id: 10 characters of milliseconds then 16 random ones, lower case (valid in keys). */
export function newId(now: Date = new Date()): string {
  let t = now.getTime();
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[bytes[i]! % 32];
  return time + rand;
}

/** Id of chunk `index` of document `docId`: the first chunk is the document id itself. */
export function chunkId(docId: string, index: number): string {
  return index === 0 ? docId : `${docId}-${index}`;
}

/** SHA-256 hex of a text. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
