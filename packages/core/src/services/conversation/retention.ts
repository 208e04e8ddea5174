import type { TranscriptStore } from '../../ports/transcript-store.js';

/** Delete archives beyond a retention policy (oldest first). Returns the ids removed. */
export async function pruneArchives(
  store: TranscriptStore,
  space: string,
  agentId: string,
  policy: { maxAgeDays?: number | null; maxCount?: number | null },
  now: Date,
): Promise<string[]> {
  const archives = await store.listArchives(space, agentId);
  const doomed = new Set<string>();
  if (policy.maxCount !== null && policy.maxCount !== undefined && archives.length > policy.maxCount) {
    for (const a of archives.slice(0, archives.length - Math.max(0, policy.maxCount))) doomed.add(a.id);
  }
  if (policy.maxAgeDays !== null && policy.maxAgeDays !== undefined) {
    const limit = now.getTime() - policy.maxAgeDays * 86_400_000;
    for (const a of archives) if (Date.parse(a.archivedAt) < limit) doomed.add(a.id);
  }
  const removed: string[] = [];
  for (const id of doomed) if (await store.deleteArchive(space, agentId, id)) removed.push(id);
  return removed;
}
