import { MemError } from '../errors.js';

/** Names of transcript archives: `history_<UTC time with milliseconds>` (`:` written as `-`), plus `-<n>` from the second one in a millisecond. */

const ARCHIVE_ID = /^history_(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})Z(?:-([1-9]\d{0,5}))?$/;

/** The archive id for a compaction at `archivedAt` (ISO UTC); `n` ≥ 2 adds the collision suffix. */
export function archiveId(archivedAt: string, n = 1): string {
  const stamp = new Date(archivedAt).toISOString().replace(/:/g, '-');
  return n <= 1 ? `history_${stamp}` : `history_${stamp}-${n}`;
}

/** Parse an archive id (null when it is not one). */
export function parseArchiveId(id: string): { archivedAt: string; n: number } | null {
  const m = typeof id === 'string' ? ARCHIVE_ID.exec(id) : null;
  if (!m) return null;
  const archivedAt = `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`;
  if (Number.isNaN(Date.parse(archivedAt))) return null;
  return { archivedAt, n: m[6] ? Number(m[6]) : 1 };
}

export function invalidArchiveId(id: string): MemError {
  return new MemError(
    'INVALID_INPUT',
    `Invalid archive id "${String(id).slice(0, 100)}": archive ids look like "history_2026-03-01T12-00-00.000Z" (plus "-2", "-3"… for several in one millisecond); listArchives shows them.`,
  );
}

/** Order of archive ids: by time, then by collision suffix. */
export function compareArchiveIds(a: string, b: string): number {
  const pa = parseArchiveId(a);
  const pb = parseArchiveId(b);
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  return pa.archivedAt < pb.archivedAt ? -1 : pa.archivedAt > pb.archivedAt ? 1 : pa.n - pb.n;
}
