/** What the structured suites share: two spaces, and the check of `deleteSessions` that four session ports run. */
import { expect } from 'vitest';
import { expectMemError } from '../port-fixture.js';

export const A = 'acme';
export const B = 'globex';

// ---------- deleteSessions (summaries, session state, phases, tool events) ----------

/** How one session port writes a record, tells whether a session has any, and deletes by prefix. */
export interface SessionPort {
  /** Records written per session by `write` (what `deleteSessions` counts for one session). */
  perSession: number;
  write(space: string, sessionId: string, n: number): Promise<void>;
  has(space: string, sessionId: string): Promise<boolean>;
  deleteSessions(space: string, prefix: string): Promise<number>;
  /** The same through the core guard. */
  guarded(space: string, prefix: string): Promise<number>;
}

/** Ids chosen so that a prefix read as a `LIKE` pattern, or compared without case, would match more. */
const PREFIX_IDS = ['a/s1', 'a/s2', 'ab/s1', 'A/s1', 'b/a/s1', 'b/s1', '%/s1', 'x%y/s1', '_/s1', '\\/s1', 'a\\/s1'];

export async function checkDeleteSessions(port: SessionPort): Promise<void> {
  let n = 0;
  for (const id of PREFIX_IDS) await port.write(A, id, n++);
  await port.write(B, 'a/s1', n++);
  const left = async (space: string) => {
    const out: string[] = [];
    for (const id of PREFIX_IDS) if (await port.has(space, id)) out.push(id);
    return out;
  };
  // An empty prefix (it would delete the whole space) is refused before the store is reached.
  await expectMemError(port.guarded(A, ''), 'INVALID_INPUT');
  expect(await left(A)).toEqual(PREFIX_IDS);

  expect(await port.deleteSessions(A, 'a/')).toBe(2 * port.perSession);
  expect(await left(A)).toEqual(['ab/s1', 'A/s1', 'b/a/s1', 'b/s1', '%/s1', 'x%y/s1', '_/s1', '\\/s1', 'a\\/s1']);
  expect(await port.has(B, 'a/s1')).toBe(true);
  // `%`, `_` and `\` are ordinary characters.
  expect(await port.deleteSessions(A, '%')).toBe(port.perSession);
  expect(await port.deleteSessions(A, '_/')).toBe(port.perSession);
  expect(await port.deleteSessions(A, '\\')).toBe(port.perSession);
  expect(await left(A)).toEqual(['ab/s1', 'A/s1', 'b/a/s1', 'b/s1', 'x%y/s1', 'a\\/s1']);
  expect(await port.guarded(A, 'nobody/')).toBe(0);
  expect(await port.guarded(A, 'b/')).toBe(2 * port.perSession);
  expect(await left(A)).toEqual(['ab/s1', 'A/s1', 'x%y/s1', 'a\\/s1']);
  // Another space is untouched, and a deleted session can be written again.
  expect(await left(B)).toEqual(['a/s1']);
  await port.write(A, 'a/s1', n++);
  expect(await port.has(A, 'a/s1')).toBe(true);
}
